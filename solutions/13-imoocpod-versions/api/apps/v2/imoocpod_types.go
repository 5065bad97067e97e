package v2

import (
	corev1 "k8s.io/api/core/v1"
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

	// Template is the pod every copy is made from, as a ReplicaSet's template is. v1 said
	// only spec.image; the labels and every container field but the first container's
	// image are new in v2.
	Template PodTemplate `json:"template"`
}

// PodTemplate is the part of a pod that an ImoocPod lets its user choose: the fields of
// a ReplicaSet's template that the controller copies into each pod.
type PodTemplate struct {
	// Metadata holds the labels every pod gets, beside the ImoocPod's own.
	// +optional
	Metadata PodTemplateMetadata `json:"metadata,omitempty"`
	// Spec holds the pod's containers.
	Spec PodTemplateSpec `json:"spec"`
}

// PodTemplateMetadata is the metadata of a PodTemplate.
type PodTemplateMetadata struct {
	// Labels are put on every pod. The ImoocPod's own label
	// (apps.workshop.dev/imoocpod) is always set to the ImoocPod's name.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
}

// PodTemplateSpec is the spec of a PodTemplate.
type PodTemplateSpec struct {
	// Containers run in every pod: at least one, each with a name of its own and an
	// image (the API server would refuse a pod with a container that has none).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:XValidation:rule="self.all(c, has(c.image) && c.image != '')",message="every container needs an image"
	// +listType=map
	// +listMapKey=name
	Containers []corev1.Container `json:"containers"`
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

// ConditionTemplateAnnotationIgnored is True while the ImoocPod carries the v1
// annotation apps.workshop.dev/v2-template, which v2 does not read: one a conversion
// from v1 could not use (not JSON, or a template v2's schema refuses; the reason
// InvalidTemplate), or one a v2 client wrote (WrittenInV2). The pods are made from
// spec.template. It is absent when there is no such annotation.
const ConditionTemplateAnnotationIgnored = "TemplateAnnotationIgnored"

// The reasons of the TemplateAnnotationIgnored condition.
const (
	ReasonInvalidTemplate = "InvalidTemplate"
	ReasonWrittenInV2     = "WrittenInV2"
)

// ImoocPodStatus is what the controller observed on its last pass. It is the same in v1.
type ImoocPodStatus struct {
	// Replicas is the number of pods that exist and are active: controlled by this
	// ImoocPod, not being deleted, not finished.
	// +kubebuilder:default=0
	// +optional
	Replicas int32 `json:"replicas"`
	// ReadyReplicas is the number of those pods whose Ready condition is True.
	// +kubebuilder:default=0
	// +optional
	ReadyReplicas int32 `json:"readyReplicas"`
	// Selector selects the ImoocPod's pods, as a label selector string
	// (apps.workshop.dev/imoocpod=<name>): the scale subresource's status.selector.
	// +optional
	Selector string `json:"selector,omitempty"`
	// ObservedGeneration is the metadata.generation of the spec the last successful pass
	// acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions hold the Ready condition, and TemplateAnnotationIgnored while it holds.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=imp
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`,description="The number of pods asked for"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.replicas`,description="The number of active pods"
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=`.status.readyReplicas`,description="The number of ready pods"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// ImoocPod keeps a number of identical pods running, like a small ReplicaSet. v2 is the
// version the API server stores: an object written in v1 is converted to v2 first.
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
