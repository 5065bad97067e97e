package controller

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/14-nodepool-apply/api/nodes/v1"
)

func poolMemberLabel(pool string) string { return nodesv1.MemberLabelPrefix + pool }

func poolRecordAnnotation(pool string) string { return nodesv1.RecordAnnotationPrefix + pool }

// isPoolMember reports whether node belongs to the NodePool named pool.
func isPoolMember(node *corev1.Node, pool string) bool {
	_, ok := node.Labels[poolMemberLabel(pool)]
	return ok
}

// concernsPool reports whether a pass of the NodePool named pool has anything to do
// with node: a member gets the pool's labels and taints, and a node on which the pool's
// field manager still owns labels (appliedLabels), or that still carries the pool's
// record of taints, has left and must lose what the pool gave it.
func concernsPool(node *corev1.Node, pool string) bool {
	_, recorded := node.Annotations[poolRecordAnnotation(pool)]
	return recorded || isPoolMember(node, pool) || len(appliedLabels(node, pool)) > 0
}

// recordedPools returns, sorted, the NodePools that have a record on node: an annotation
// of taints, or labels their field managers own.
func recordedPools(node *corev1.Node) []string {
	pools := sets.New[string]()
	for key := range node.Annotations {
		if pool, ok := strings.CutPrefix(key, nodesv1.RecordAnnotationPrefix); ok {
			pools.Insert(pool)
		}
	}
	for _, entry := range node.ManagedFields {
		if pool, ok := strings.CutPrefix(entry.Manager, FieldManagerPrefix); ok {
			pools.Insert(pool)
		}
	}
	return sets.List(pools)
}

// poolRecord is what one NodePool gave one node: its labels and its taints, each with the
// value the pool gave it.
//
// The labels are the API server's record: the fields the pool's field manager owns in
// the node's managedFields (appliedLabels), which only a request of that manager
// changes. The taints are the controller's own record, in the annotation
// nodesv1.RecordAnnotationPrefix + pool: a node's taints are an atomic list
// (+listType=atomic in k8s.io/api), which one field manager owns whole, so applying the
// pool's would take over everyone's. The annotation changes in the same patch as the
// taints it describes; a taint is the pool's only while it still has the value recorded
// there (heldOn): whoever changed it made it theirs.
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

// readPoolRecord returns the record of the NodePool named pool on node: the labels its
// field manager owns, and the taints its annotation lists; and whether there is one. The
// labels an annotation of lesson 09 lists are not read: the annotation may be forged, the
// managedFields may not.
func readPoolRecord(node *corev1.Node, pool string) (poolRecord, bool, error) {
	record := poolRecord{Labels: appliedLabels(node, pool)}
	value, ok := node.Annotations[poolRecordAnnotation(pool)]
	if !ok {
		return record, len(record.Labels) > 0, nil
	}
	var recorded poolRecord
	if err := json.Unmarshal([]byte(value), &recorded); err != nil {
		return record, true, fmt.Errorf("annotation %s is not a record of this controller: %w",
			poolRecordAnnotation(pool), err)
	}
	record.Taints = recorded.Taints
	return record, true, nil
}

// writePoolRecord records on node the taints the NodePool named pool gave it, sorted: a
// record that encoded differently on each pass would be a change, and a write, on every
// pass.
func writePoolRecord(node *corev1.Node, pool string, taints []corev1.Taint) {
	var record poolRecord
	for _, t := range taints {
		record.Taints = append(record.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	slices.SortFunc(record.Taints, func(a, b corev1.Taint) int { return strings.Compare(taintID(a), taintID(b)) })
	value, _ := json.Marshal(record) // strings always encode
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

// poolShare returns what pool gives node, if anything (member): a member gets its labels
// and taints, any other node nothing.
func poolShare(node *corev1.Node, pool *nodesv1.NodePool) (labels map[string]string, taints []corev1.Taint, member bool) {
	if !isPoolMember(node, pool.Name) {
		return nil, nil, false
	}
	// A pool being deleted gives nothing, members included: its last pass takes back
	// everything it gave.
	if !pool.DeletionTimestamp.IsZero() {
		return nil, nil, false
	}
	return pool.Spec.Labels, pool.Spec.Taints, true
}

// withPool returns a copy of node with the taints pool wants it to carry, and what
// changed: a member carries the pool's taints, where nobody else's value holds the key,
// and the record of them; any other node carries none of the pool's taints, and no
// record. Either way, what the pool holds (heldOn) and no longer gives goes, and nothing
// else the node carries is touched. The labels are applied (applyPoolLabels), not
// patched: withPool leaves them as they are, and drops the labels a record of lesson 09
// lists once the pool's field manager owns them (adoptRecordedLabels).
func withPool(node *corev1.Node, pool *nodesv1.NodePool) (*corev1.Node, nodeChange) {
	// A record this controller cannot read is dropped: the node's kubelet may write its
	// annotations, and refusing it would fail every pass of the pool, and hold a deleted
	// pool for ever. Read as empty, it is replaced (member) or removed. What the pool gave
	// the node stays: without the record, it is no longer told from anyone else's.
	record, recorded, err := readPoolRecord(node, pool.Name)
	if err != nil {
		recorded = false
	}
	// The record may be forged (within): take back only what the pool has listed, never
	// an admin's taint or a label the kubelet may not remove itself.
	record = record.within(listedKeys(pool))
	held := record.heldOn(node)
	_, taints, member := poolShare(node, pool)

	want := node.DeepCopy()
	givenTaints := setPoolTaints(want, held.Taints, taints)
	if member && len(givenTaints) > 0 {
		writePoolRecord(want, pool.Name, givenTaints)
	} else {
		delete(want.Annotations, poolRecordAnnotation(pool.Name))
	}

	switch {
	case equality.Semantic.DeepEqual(node.Annotations, want.Annotations) &&
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
