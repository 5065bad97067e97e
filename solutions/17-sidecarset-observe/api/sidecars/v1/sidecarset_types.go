package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SidecarSetSpec says which pods get which sidecars. The pod webhook reads it when a pod
// is created; a pod that already runs is never changed.
type SidecarSetSpec struct {
	// Selector picks the pods, by their labels, in every namespace the webhook sees. It
	// must name some label: an empty selector ({}), which would pick every pod of the
	// cluster, is refused.
	// +required
	Selector *metav1.LabelSelector `json:"selector"`

	// NamespaceSelector limits the SidecarSet to the namespaces whose labels it matches.
	// Missing means every namespace the webhook sees.
	// +optional
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty"`

	// Containers are the sidecars, added to every matching pod as native sidecars: init
	// containers whose restartPolicy is Always, after the pod's own init containers. They
	// are Kubernetes containers, whose fields `kubectl explain pod.spec.initContainers`
	// describes.
	// +kubebuilder:validation:MinItems=1
	// +required
	Containers []corev1.Container `json:"containers"`

	// Volumes are added to every pod that gets a sidecar of this SidecarSet, for the
	// sidecars to mount. A sidecar may also mount a volume the pod has of its own.
	// `kubectl explain pod.spec.volumes` describes their fields.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
}

// The condition types of a SidecarSet; sidecarset_status.go says when each is True.
const (
	// ConditionInjected says whether every matched pod runs the SidecarSet's sidecars.
	ConditionInjected = "Injected"
	// ConditionUpToDate says whether every injected pod runs the current revision of them.
	ConditionUpToDate = "UpToDate"
)

// The reasons of the conditions.
const (
	ReasonAllPodsInjected = "AllPodsInjected"
	ReasonPodsNotInjected = "PodsNotInjected"
	ReasonNoMatchingPods  = "NoMatchingPods"
	ReasonAllPodsUpToDate = "AllPodsUpToDate"
	ReasonOlderRevisions  = "OlderRevisions"
	ReasonReconcileError  = "ReconcileError"
)

// SidecarSetStatus is what the controller counted on its last pass. The counts default
// to 0: a merge patch leaves out a count that stays 0, and `kubectl get sidecarsets`
// should show 0 rather than nothing.
type SidecarSetStatus struct {
	// MatchedPods is the number of pods, not being deleted, that the SidecarSet selects
	// now, in the namespaces the webhook sees.
	// +kubebuilder:default=0
	// +optional
	MatchedPods int32 `json:"matchedPods"`

	// InjectedPods is the number of those pods that run its sidecars, of any revision.
	// +kubebuilder:default=0
	// +optional
	InjectedPods int32 `json:"injectedPods"`

	// OutdatedPods is the number of injected pods that run an older revision of the
	// sidecars: the SidecarSet changed after they were created. They keep it until they
	// are recreated.
	// +kubebuilder:default=0
	// +optional
	OutdatedPods int32 `json:"outdatedPods"`

	// Revision is the revision of spec.containers and spec.volumes that pods created now
	// get; each injected pod records the revision it got.
	// +optional
	Revision string `json:"revision,omitempty"`

	// ObservedGeneration is the metadata.generation of the spec the last successful pass
	// counted against.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions hold the Injected and UpToDate conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=scs
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Matched",type=integer,JSONPath=`.status.matchedPods`,description="The pods the SidecarSet selects"
// +kubebuilder:printcolumn:name="Injected",type=integer,JSONPath=`.status.injectedPods`,description="The pods that run its sidecars"
// +kubebuilder:printcolumn:name="Outdated",type=integer,JSONPath=`.status.outdatedPods`,description="The injected pods that run an older revision of the sidecars"
// +kubebuilder:printcolumn:name="Revision",type=string,JSONPath=`.status.revision`,priority=1,description="The revision new pods get"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// SidecarSet adds containers and volumes to every pod it selects, when the pod is created.
type SidecarSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SidecarSetSpec `json:"spec"`
	// +optional
	Status SidecarSetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SidecarSetList is a list of SidecarSets.
type SidecarSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SidecarSet `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &SidecarSet{}, &SidecarSetList{})
		return nil
	})
}
