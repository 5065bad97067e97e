package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// MyDaemonSetSpec is what the user asks for: one pod of this image on every node that
// matches the node selector.
type MyDaemonSetSpec struct {
	// Image is the container image every pod runs. Changing it replaces the pods one
	// node at a time.
	// +kubebuilder:validation:MinLength=1
	// +required
	Image string `json:"image"`

	// NodeSelector limits the MyDaemonSet to the nodes that carry all of these labels.
	// Empty or missing means every node.
	// +optional
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`

	// Tolerations let the pods onto nodes with taints, as a pod's tolerations do. The
	// controller binds its pods itself, past the scheduler, so it checks the taints: a
	// node with a NoSchedule or NoExecute taint the pods do not tolerate gets no new pod,
	// and one with an untolerated NoExecute taint loses its pod. The pods always tolerate
	// the taints of a NotReady or unreachable node and of a node under memory, disk or
	// PID pressure, as a DaemonSet's pods do. tolerationSeconds is refused: a daemon
	// either belongs on a tainted node or it does not, and a pod evicted after some
	// seconds would only be created again. Changing the tolerations replaces no pod: the
	// pods created after it carry them.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.operator) || t.operator in ['Equal', 'Exists'])",message="operator must be Equal or Exists"
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.effect) || t.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",message="effect must be NoSchedule, PreferNoSchedule, NoExecute or empty (every effect)"
	// +kubebuilder:validation:XValidation:rule="self.all(t, (has(t.key) && t.key != '') || (has(t.operator) && t.operator == 'Exists'))",message="a toleration without a key must have the operator Exists"
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.operator) || t.operator != 'Exists' || !has(t.value) || t.value == '')",message="a toleration with the operator Exists has no value"
	// +kubebuilder:validation:XValidation:rule="self.all(t, !has(t.tolerationSeconds))",message="tolerationSeconds is not supported: a daemon pod tolerates a taint for good or not at all"
	// TODO(1): Refuse toleration keys and values too long for a label, in the CRD.
	// The CRD refuses a toleration whose key is longer than a label key may be (317
	// characters) or whose value is longer than a label value (63), each with a message
	// that names the rule, under spec.tolerations; a MyDaemonSet stored before the rule
	// still takes an update of its other fields. See "CEL rules in the schema" and
	// "Ratcheting" in docs/lesson-16.md.
	// +listType=atomic
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`

	// ImagePullPolicy is the pull policy of the pods' container. When it is missing, the
	// defaulting webhook sets it the way Kubernetes defaults a container's: Always for an
	// image tagged latest or not tagged at all, IfNotPresent otherwise. A change of this
	// field alone replaces no pod: the pods created after it use it.
	// +kubebuilder:validation:Enum=Always;IfNotPresent;Never
	// +optional
	ImagePullPolicy corev1.PullPolicy `json:"imagePullPolicy,omitempty"`
}

// ConditionReady is the type of the condition that says whether every node that should
// run a pod of the MyDaemonSet runs a ready one of spec.image.
const ConditionReady = "Ready"

// The reasons of the Ready condition; mydaemonset_status.go says when each applies.
const (
	ReasonAllPodsAvailable = "AllPodsAvailable"
	ReasonRollingOut       = "RollingOut"
	ReasonPodsMissing      = "PodsMissing"
	ReasonPodsNotReady     = "PodsNotReady"
	ReasonReconcileError   = "ReconcileError"
)

// MyDaemonSetStatus is what the controller observed on its last pass, counted in nodes
// like a DaemonSet's. A node "should run a pod" when it matches spec.nodeSelector, is not
// cordoned, and is Ready or already runs one. The counts are never left out, and the API
// server defaults them to 0 in a status that lacks them (a merge patch sends no count
// that stayed 0), so that `kubectl get mds` shows 0 rather than <none>.
type MyDaemonSetStatus struct {
	// DesiredNumberScheduled is the number of nodes that should run a pod.
	// +kubebuilder:default=0
	// +optional
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled"`

	// CurrentNumberScheduled is the number of those nodes that run a pod of this
	// MyDaemonSet that is not being deleted.
	// +kubebuilder:default=0
	// +optional
	CurrentNumberScheduled int32 `json:"currentNumberScheduled"`

	// UpdatedNumberScheduled is the number of those pods that run spec.image.
	// +kubebuilder:default=0
	// +optional
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled"`

	// NumberAvailable is the number of those pods whose Ready condition is True.
	// +kubebuilder:default=0
	// +optional
	NumberAvailable int32 `json:"numberAvailable"`

	// ObservedGeneration is the metadata.generation of the spec the last successful pass
	// acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions hold the Ready condition.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// The name goes into the pods' label, and a label value holds at most 63 characters.
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="a MyDaemonSet's name is at most 63 characters: it is the value of its pods' label"
// +kubebuilder:resource:shortName=mds
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.status.desiredNumberScheduled`,description="The number of nodes that should run a pod"
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.currentNumberScheduled`,description="The number of those nodes that run one"
// +kubebuilder:printcolumn:name="Up-to-date",type=integer,JSONPath=`.status.updatedNumberScheduled`,priority=1,description="The number of pods that run spec.image"
// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.numberAvailable`,description="The number of ready pods"
// +kubebuilder:printcolumn:name="Node Selector",type=string,JSONPath=`.spec.nodeSelector`,priority=1,description="The labels a node needs to run a pod"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// MyDaemonSet runs one pod on every node that matches its node selector, like a small
// DaemonSet.
type MyDaemonSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// A pull policy, once stored, stays: the pods were created with it, and a patch that
	// drops it would leave the object saying nothing about what the nodes pulled.
	// TODO(2): Keep a pull policy once it is set.
	// An update may change spec.imagePullPolicy but not remove it; the refusal names
	// spec.imagePullPolicy. See "Transition rules" in docs/lesson-16.md.
	Spec MyDaemonSetSpec `json:"spec"`
	// +optional
	Status MyDaemonSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MyDaemonSetList is a list of MyDaemonSets.
type MyDaemonSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []MyDaemonSet `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &MyDaemonSet{}, &MyDaemonSetList{})
		return nil
	})
}
