package controller

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/05-nodepool/api/nodes/v1"
)

// concernsPool reports whether a pass of the NodePool named pool has anything to do
// with node: a member gets the pool's labels and taints, and a node that still carries
// the pool's record has left and must lose what the pool gave it.
func concernsPool(node *corev1.Node, pool string) bool {
	// TODO(3): Pick the nodes a pass looks at.
	// A pass looks at the pool's members and at every node that still carries the
	// pool's record, member or not: report true for those, false for any other
	// node. See "Who a pass looks at" in docs/lesson-05.md.
	return isPoolMember(node, pool)
}

// readPoolRecord returns the record of the NodePool named pool on node, and whether
// there is one.
//
// The record is the annotation nodesv1.RecordAnnotationPrefix + pool. A node's labels do
// not say who set them, and the controller must never remove what someone else set. So
// it remembers what it set, and the node is the place: the record changes in the same
// patch as the labels and taints it describes, so the two never disagree, even when the
// manager dies between two writes; it outlives the pool, so a node that has left a pool
// still says what to remove; and it stays out of the pool's spec, which is the user's,
// and its status, which must never be the only copy of a fact. (Server-side apply tracks
// ownership itself, but a node's taints are an atomic list: applying ours would take
// over everyone's.)
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

// withPool returns a copy of node as pool wants it, and what changed: a member carries
// the pool's labels and taints, where nobody else's value holds the key, and the record
// of them; any other node carries nothing of the pool's, record included. Either way,
// what the pool holds (heldOn) and no longer gives goes, and nothing else the node
// carries is touched.
func withPool(node *corev1.Node, pool *nodesv1.NodePool) (*corev1.Node, nodeChange) {
	held, recorded := heldRecord(node, pool)
	labels, taints, member := poolShare(node, pool)

	want := node.DeepCopy()
	givenLabels := setPoolLabels(want, held.Labels, labels)
	givenTaints := setPoolTaints(want, held.Taints, taints)
	if member {
		writePoolRecord(want, pool.Name, poolRecord{Labels: givenLabels, Taints: givenTaints})
	} else {
		delete(want.Annotations, poolRecordAnnotation(pool.Name))
	}

	return withChange(node, want, member, recorded)
}

// setPoolLabels removes from node the labels of held (what the pool gave and the node
// still carries as it gave it) that want no longer lists, and sets every label of want
// whose key is free or held. A key that carries someone else's value stays theirs. It
// returns the labels it set: the pool's from now on.
func setPoolLabels(node *corev1.Node, held, want map[string]string) map[string]string {
	// TODO(1): Set the pool's labels on a node.
	// The node loses each label of held that want no longer lists, and gets each
	// label of want whose key it lacks or the pool holds; return the labels you
	// set. A key the pool does not hold stays as it is, whatever its value, and a
	// node may have no labels at all. See "Remembering what the pool gave" in
	// docs/lesson-05.md.
	return nil
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
