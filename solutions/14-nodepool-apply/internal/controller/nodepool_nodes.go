package controller

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

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

// readPoolRecord returns the record of the NodePool named pool on node: the labels its
// field manager owns, and the taints its annotation lists; and whether there is one.
//
// The labels are the API server's record: the fields the pool's field manager owns in
// the node's managedFields (appliedLabels), which only a request of that manager
// changes, or a write of metadata.managedFields itself. The labels an annotation of
// lesson 09 lists are not read: any edit of the node's annotations changes it. The
// taints are the controller's own record, in the annotation
// nodesv1.RecordAnnotationPrefix + pool: a node's taints are an atomic list
// (+listType=atomic in k8s.io/api), which one field manager owns whole, so applying the
// pool's would take over everyone's. The annotation changes in the same patch as the
// taints it describes.
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

// withPool returns a copy of node with the taints pool wants it to carry, and what
// changed: a member carries the pool's taints, where nobody else's value holds the key,
// and the record of them; any other node carries none of the pool's taints, and no
// record. Either way, what the pool holds (heldOn) and no longer gives goes, and nothing
// else the node carries is touched. The labels are applied (applyPoolLabels), not
// patched: withPool leaves them as they are, and drops the labels a record of lesson 09
// lists once the pool's field manager owns them (adoptRecordedLabels).
func withPool(node *corev1.Node, pool *nodesv1.NodePool) (*corev1.Node, nodeChange) {
	held, recorded := heldRecord(node, pool)
	_, taints, member := poolShare(node, pool)

	want := node.DeepCopy()
	givenTaints := setPoolTaints(want, held.Taints, taints)
	if member && len(givenTaints) > 0 {
		writePoolRecord(want, pool.Name, poolRecord{Taints: givenTaints})
	} else {
		delete(want.Annotations, poolRecordAnnotation(pool.Name))
	}

	return withChange(node, want, member, recorded)
}
