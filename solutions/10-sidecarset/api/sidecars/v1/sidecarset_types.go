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

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=scs
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// SidecarSet adds containers and volumes to every pod it selects, when the pod is created.
type SidecarSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SidecarSetSpec `json:"spec"`
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
