package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ImoocPodSpec is what the user asks for: how many copies of which pod.
type ImoocPodSpec struct {
	// Replicas is the number of pods to keep running. It is a pointer so that an explicit
	// 0 differs from "not set", which the API server defaults to 1.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Image is the container image every pod runs.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:default="registry.k8s.io/pause:3.10"
	// +optional
	Image string `json:"image,omitempty"`
}

// ConditionReady is the type of the condition that says whether every pod the ImoocPod
// asks for exists and is ready.
const ConditionReady = "Ready"

// The reasons of the Ready condition: one word a script can compare, with the details
// in the condition's message.
const (
	ReasonAllReplicasReady = "AllReplicasReady"
	ReasonScalingUp        = "ScalingUp"
	ReasonScalingDown      = "ScalingDown"
	ReasonPodsNotReady     = "PodsNotReady"
	ReasonReconcileError   = "ReconcileError"
)

// ImoocPodStatus is what the controller observed on its last pass. Only the controller
// writes it, through the status subresource; a user's edit of spec never touches it.
type ImoocPodStatus struct {
	// Replicas is the number of pods that exist and are active: controlled by this
	// ImoocPod, not being deleted, not finished. The counts are never left out, and the
	// API server defaults them to 0 in a status that lacks them (a merge patch sends no
	// count that stayed 0), so that `kubectl get` shows 0 rather than <none>.
	// +kubebuilder:default=0
	// +optional
	Replicas int32 `json:"replicas"`

	// ReadyReplicas is the number of those pods whose Ready condition is True.
	// +kubebuilder:default=0
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`

	// Selector selects the ImoocPod's pods, as a label selector string
	// (apps.workshop.dev/imoocpod=<name>). It is the scale subresource's status.selector,
	// through which a HorizontalPodAutoscaler finds the pods whose metrics it reads.
	// +optional
	Selector string `json:"selector,omitempty"`

	// ObservedGeneration is the metadata.generation of the spec the last successful pass
	// acted on. While it is lower than metadata.generation, the rest of the status
	// describes an older spec.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions hold the Ready condition.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=imp
// TODO(1): Give ImoocPod its subresources and columns.
// ImoocPod gets a status subresource, so that the user and the controller each write
// their own half; a scale subresource over spec.replicas, status.replicas and
// status.selector, for `kubectl scale` and an autoscaler; and the columns DESIRED,
// CURRENT, READY and AGE of `kubectl get rs`. See "Subresources and printer columns"
// in docs/lesson-02.md.

// ImoocPod keeps a number of identical pods running, like a small ReplicaSet.
//
// Its name becomes the value of a label on every pod it makes, and a label value has at
// most 63 characters: the API server refuses a longer name, which no pod could carry.
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="the name is the value of a label on every pod: at most 63 characters"
type ImoocPod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ImoocPodSpec `json:"spec,omitempty"`
	// +optional
	Status ImoocPodStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ImoocPodList is a list of ImoocPods.
type ImoocPodList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ImoocPod `json:"items"`
}
