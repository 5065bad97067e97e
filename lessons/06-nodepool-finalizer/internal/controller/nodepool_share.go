package controller

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/api/nodes/v1"
)

func poolMemberLabel(pool string) string { return nodesv1.MemberLabelPrefix + pool }

func poolRecordAnnotation(pool string) string { return nodesv1.RecordAnnotationPrefix + pool }

// isPoolMember reports whether node belongs to the NodePool named pool.
func isPoolMember(node *corev1.Node, pool string) bool {
	_, ok := node.Labels[poolMemberLabel(pool)]
	return ok
}

// poolShare returns what pool gives node, if anything (member): a member gets its labels
// and taints, any other node nothing.
func poolShare(node *corev1.Node, pool *nodesv1.NodePool) (labels map[string]string, taints []corev1.Taint, member bool) {
	if !isPoolMember(node, pool.Name) {
		return nil, nil, false
	}
	// TODO(2): A pool being deleted gives nothing.
	// A pool being deleted gives nothing to anyone, members included, so that its
	// last pass takes back everything it gave. See "Deleting a pool" in
	// docs/lesson-06.md.
	return pool.Spec.Labels, pool.Spec.Taints, true
}

// poolRecord is what one NodePool gave one node: its labels and its taints, each with the
// value the pool gave it (readPoolRecord says where the record is kept, and why there).
// A label or taint is the pool's only while it still has the value recorded (heldOn):
// whoever changed it made it theirs.
type poolRecord struct {
	Labels map[string]string `json:"labels,omitempty"`
	Taints []corev1.Taint    `json:"taints,omitempty"`
}

// heldOn returns the part of record that node still carries as the pool gave it. A label
// or taint that someone has since changed, or removed, is theirs: the pool neither
// changes it nor takes it back.
func (record poolRecord) heldOn(node *corev1.Node) poolRecord {
	held := poolRecord{Labels: maps.Clone(record.Labels)}
	maps.DeleteFunc(held.Labels, func(key, value string) bool {
		carried, ok := node.Labels[key]
		return !ok || carried != value
	})
	for _, t := range record.Taints {
		if slices.ContainsFunc(node.Spec.Taints, func(n corev1.Taint) bool { return sameTaint(n, t) }) {
			held.Taints = append(held.Taints, t)
		}
	}
	return held
}

// heldRecord returns what pool holds on node (heldOn) of what its record lists, and
// whether node carries a record of pool that this controller can read.
//
// A record annotation it cannot read counts as none: the node's kubelet may write its
// annotations, and refusing it would fail every pass of the pool, and hold a deleted pool
// for ever. Read as empty, it is replaced (member) or removed. What the pool gave the
// node stays: without the record, it is no longer told from anyone else's.
func heldRecord(node *corev1.Node, pool *nodesv1.NodePool) (poolRecord, bool) {
	record, recorded, err := readPoolRecord(node, pool.Name)
	if err != nil {
		recorded = false
	}
	return record.heldOn(node), recorded
}

// writePoolRecord writes record on node, as the annotation of the NodePool named pool.
// The taints are sorted, and the labels are a map, which encoding/json writes sorted: a
// record that encoded differently on each pass would be a change, and a write, on every
// pass.
func writePoolRecord(node *corev1.Node, pool string, record poolRecord) {
	written := poolRecord{Labels: record.Labels}
	for _, t := range record.Taints {
		written.Taints = append(written.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	slices.SortFunc(written.Taints, func(a, b corev1.Taint) int { return strings.Compare(taintID(a), taintID(b)) })
	value, _ := json.Marshal(written) // strings always encode
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations[poolRecordAnnotation(pool)] = string(value)
}

// nodeChange says what a pass did to a node.
type nodeChange string

const (
	nodeUnchanged nodeChange = ""
	// nodeJoined: a member the pool had not touched yet got the pool's labels and taints.
	nodeJoined nodeChange = "joined"
	// nodeUpdated: a member's labels or taints were brought back in line with the pool.
	nodeUpdated nodeChange = "updated"
	// nodeLeft: a node that is no longer a member lost what the pool gave it.
	nodeLeft nodeChange = "left"
)

// withChange returns want and what it changes on node, a member of the pool or not
// (member) that carried a record of it or not (recorded); or node itself and
// nodeUnchanged when want carries the same labels, annotations and taints.
func withChange(node, want *corev1.Node, member, recorded bool) (*corev1.Node, nodeChange) {
	switch {
	case equality.Semantic.DeepEqual(node.Labels, want.Labels) &&
		equality.Semantic.DeepEqual(node.Annotations, want.Annotations) &&
		equality.Semantic.DeepEqual(node.Spec.Taints, want.Spec.Taints):
		return node, nodeUnchanged
	case member && !recorded:
		return want, nodeJoined
	case !member:
		return want, nodeLeft
	default:
		return want, nodeUpdated
	}
}
