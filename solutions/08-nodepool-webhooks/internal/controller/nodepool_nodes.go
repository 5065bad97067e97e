package controller

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/08-nodepool-webhooks/api/nodes/v1"
)

func poolMemberLabel(pool string) string { return nodesv1.MemberLabelPrefix + pool }

func poolRecordAnnotation(pool string) string { return nodesv1.RecordAnnotationPrefix + pool }

// isPoolMember reports whether node belongs to the NodePool named pool.
func isPoolMember(node *corev1.Node, pool string) bool {
	_, ok := node.Labels[poolMemberLabel(pool)]
	return ok
}

// concernsPool reports whether a pass of the NodePool named pool has anything to do
// with node: a member gets the pool's labels and taints, and a node that still carries
// the pool's record has left and must lose what the pool gave it.
func concernsPool(node *corev1.Node, pool string) bool {
	_, recorded := node.Annotations[poolRecordAnnotation(pool)]
	return recorded || isPoolMember(node, pool)
}

// poolRecord is what one NodePool put on one node, in the annotation
// nodesv1.RecordAnnotationPrefix + pool: its labels and its taints, each with the value
// the pool gave it.
//
// A node's labels do not say who set them, and the controller must never remove what
// someone else set. So it remembers what it set, and the node is the place: the record
// changes in the same patch as the labels and taints it describes, so the two never
// disagree, even when the manager dies between two writes; it outlives the pool, so a
// node that has left a pool still says what to remove; and it stays out of the pool's
// spec, which is the user's, and its status, which must never be the only copy of a
// fact. (Server-side apply tracks ownership itself, but a node's taints are an atomic
// list: applying ours would take over everyone's.) A label or taint is the pool's only
// while it still has the value recorded here (heldOn): whoever changed it made it theirs.
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

// readPoolRecord returns the record of the NodePool named pool on node, and whether
// there is one.
func readPoolRecord(node *corev1.Node, pool string) (poolRecord, bool, error) {
	var record poolRecord
	value, ok := node.Annotations[poolRecordAnnotation(pool)]
	if !ok {
		return record, false, nil
	}
	if err := json.Unmarshal([]byte(value), &record); err != nil {
		return poolRecord{}, true, fmt.Errorf("annotation %s is not a record of this controller: %w",
			poolRecordAnnotation(pool), err)
	}
	return record, true, nil
}

// writePoolRecord records on node the labels and taints the NodePool named pool gave
// it. The taints are sorted, and the labels are a map, which encoding/json writes sorted:
// a record that encoded differently on each pass would be a change, and a write, on
// every pass.
func writePoolRecord(node *corev1.Node, pool string, labels map[string]string, taints []corev1.Taint) {
	record := poolRecord{Labels: labels}
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

// withPool returns a copy of node as pool wants it, and what changed: a member carries
// the pool's labels and taints, where nobody else's value holds the key, and the record
// of them; any other node carries nothing of the pool's, record included. Either way,
// what the pool holds (heldOn) and no longer gives goes, and nothing else the node
// carries is touched.
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
	labels, taints, member := poolShare(node, pool)

	want := node.DeepCopy()
	givenLabels := setPoolLabels(want, held.Labels, labels)
	givenTaints := setPoolTaints(want, held.Taints, taints)
	if member {
		writePoolRecord(want, pool.Name, givenLabels, givenTaints)
	} else {
		delete(want.Annotations, poolRecordAnnotation(pool.Name))
	}

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

// setPoolLabels removes from node the labels of held (what the pool gave and the node
// still carries as it gave it) that want no longer lists, and sets every label of want
// whose key is free or held. A key that carries someone else's value stays theirs. It
// returns the labels it set: the pool's from now on.
func setPoolLabels(node *corev1.Node, held, want map[string]string) map[string]string {
	for key := range held {
		if _, keep := want[key]; !keep {
			delete(node.Labels, key)
		}
	}
	var given map[string]string
	for key, value := range want {
		_, carried := node.Labels[key]
		if _, ours := held[key]; carried && !ours {
			continue
		}
		if node.Labels == nil {
			node.Labels = map[string]string{}
		}
		if given == nil {
			given = map[string]string{}
		}
		node.Labels[key], given[key] = value, value
	}
	return given
}

// recordedPools returns, sorted, the NodePools whose records node carries.
func recordedPools(node *corev1.Node) []string {
	var pools []string
	for _, key := range slices.Sorted(maps.Keys(node.Annotations)) {
		if pool, ok := strings.CutPrefix(key, nodesv1.RecordAnnotationPrefix); ok {
			pools = append(pools, pool)
		}
	}
	return pools
}
