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

// ConditionReady is the type of the condition that says whether the pool's nodes carry
// what it gives them.
const ConditionReady = "Ready"

// ConditionConflict is the type of the condition that says whether some of the pool's
// members carry someone else's value (another pool's, an admin's) for one of its keys.
const ConditionConflict = "Conflict"

// The reasons of the Conflict condition.
const (
	// ReasonKeysHeldByOthers: some members carry someone else's value for one of the
	// pool's keys, which the pool leaves to them; the message names the first.
	ReasonKeysHeldByOthers = "KeysHeldByOthers"
	// ReasonNoConflict: the pool's members carry its keys as it gives them.
	ReasonNoConflict = "NoConflict"
)

// ConditionUnreadableRecords is the type of the condition that says whether the last
// pass found records on nodes it could not read (annotations that are not JSON, which a
// node's kubelet may write), and dropped them.
const ConditionUnreadableRecords = "UnreadableRecords"

// The reasons of the UnreadableRecords condition.
const (
	// ReasonRecordsDropped: the last pass dropped unreadable records; what the pool had
	// given those nodes stays there, since it can no longer tell it from anyone else's.
	ReasonRecordsDropped = "RecordsDropped"
	// ReasonRecordsRead: every record the last pass met was readable.
	ReasonRecordsRead = "RecordsRead"
)

// The reasons of the Ready condition, which `kubectl get nodepools` shows as STATUS.
const (
	// ReasonNodesConfigured: every member carries the pool's labels and taints, and the
	// RuntimeClass is in line with the pool.
	ReasonNodesConfigured = "NodesConfigured"
	// ReasonNodesInConflict: another pool holds one of the pool's keys, with another
	// value, on some members; they do not count as the pool's nodes.
	ReasonNodesInConflict = "NodesInConflict"
	// ReasonNoNodes: no node has the pool's membership label, so the RuntimeClass's pods
	// have nowhere to run.
	ReasonNoNodes = "NoNodes"
	// ReasonReconcileError: the last pass failed; the message says why.
	ReasonReconcileError = "ReconcileError"
)

// NodePoolStatus is what the controller observed on its last pass.
type NodePoolStatus struct {
	// NodeCount is the number of the pool's members.
	// +kubebuilder:default=0
	// +optional
	NodeCount int32 `json:"nodeCount,omitempty"`

	// Allocatable is the sum of the members' allocatable resources: what the scheduler
	// may give the pods of the pool's RuntimeClass.
	// +optional
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`

	// ListedLabels are the label keys the pool's spec lists, and those an earlier spec
	// listed that a record on a node still lists. A pass takes back from a node only keys
	// of this list, whatever the record on the node says: the record is an annotation,
	// which the node's kubelet may write.
	// +listType=set
	// +optional
	ListedLabels []string `json:"listedLabels,omitempty"`

	// ListedTaints are the same for taints, as key:effect.
	// +listType=set
	// +optional
	ListedTaints []string `json:"listedTaints,omitempty"`

	// ObservedGeneration is the metadata.generation of the spec the last successful pass
	// acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions hold the Ready, Conflict and UnreadableRecords conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=np
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,description="The reason of the Ready condition"
// +kubebuilder:printcolumn:name="NodeCount",type=integer,JSONPath=`.status.nodeCount`,description="The number of member nodes"
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
	// +optional
	Status NodePoolStatus `json:"status,omitempty"`
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
