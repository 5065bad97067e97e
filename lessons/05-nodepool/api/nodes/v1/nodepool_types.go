package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// NodePoolSpec is what the pool gives each of its nodes, and the RuntimeClass that
// lets a pod ask to run on them.
type NodePoolSpec struct {
	// Labels are set on every node of the pool. The pool's value wins for a key it lists,
	// whoever set that key before; labels the pool does not list are never touched.
	// The schema refuses malformed keys and the node-role.kubernetes.io/ labels, which
	// decide the pools a node belongs to. (Checking every value as well would cost more
	// than the API server allows a CEL rule on strings of unbounded length; a node
	// refuses a bad value, and the pass reports it.)
	// +kubebuilder:validation:MaxProperties=64
	// +kubebuilder:validation:XValidation:rule=`self.all(k, k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$'))`,message="every key must be a label key: an optional DNS subdomain and '/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	// +kubebuilder:validation:XValidation:rule=`self.all(k, !k.startsWith('node-role.kubernetes.io/'))`,message="node-role.kubernetes.io/ labels decide which pools a node belongs to; a NodePool cannot set them"
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// Taints are put on every node of the pool. A taint is known by its key and effect:
	// the pool's value wins for a key and effect it lists; other taints are never
	// touched.
	// +listType=map
	// +listMapKey=key
	// +listMapKey=effect
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule=`self.all(t, t.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])`,message="every effect must be NoSchedule, PreferNoSchedule or NoExecute"
	// +optional
	Taints []corev1.Taint `json:"taints,omitempty"`

	// Handler is the container runtime handler of the pool's RuntimeClass, as the nodes'
	// container runtime knows it (runc, kata, gvisor...).
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:default=runc
	// +optional
	Handler string `json:"handler,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=np
// +kubebuilder:printcolumn:name="Handler",type=string,JSONPath=`.spec.handler`,description="The RuntimeClass handler"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 63",message="a NodePool's name is the name part of the label node-role.kubernetes.io/<name>, so at most 63 characters"

// NodePool gives a group of nodes the same labels and taints, and a RuntimeClass that
// schedules pods onto them. A node belongs to the pool named P while it has the label
// node-role.kubernetes.io/P, whatever its value; the pool never sets that label itself.
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NodePoolSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// NodePoolList is a list of NodePools.
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodePool `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &NodePool{}, &NodePoolList{})
		return nil
	})
}
