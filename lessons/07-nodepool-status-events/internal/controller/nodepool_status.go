package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/07-nodepool-status-events/api/nodes/v1"
)

// countMember adds node, a member of pool, to the pool's status: one more node, and its
// allocatable resources added to the pool's.
func countMember(pool *nodesv1.NodePool, node *corev1.Node) {
	// TODO(3): Count a member into the status.
	// Add one to status.nodeCount and add each of node's allocatable quantities
	// to status.allocatable (a nil map at first). See "Status and printer
	// columns" in docs/lesson-07.md.
}

// rememberListedKeys adds the keys the pool's spec lists to its status, which the pass
// writes at its end, and never takes a key off: status.listedLabels and
// status.listedTaints say what the pool has ever listed, which bounds what a record on a
// node can make it take back (listedKeys). The record can be forged, the status cannot:
// only the controller writes it.
//
// The status comes from the cache, which may not show the last pass's status patch yet:
// a patch computed from it would replace the lists (a merge patch replaces a list
// whole) and drop a key that pass added. So when the lists are about to grow, or when a
// record on one of nodes lists a key they lack, the pass reads them from the API server
// first: one read, on the first pass of a spec that lists new keys, or when the cache is
// behind. A status that is lost (a restore from backup) leaves the keys of earlier specs
// on the nodes: a leak, never the removal of someone else's key.
func (r *NodePoolReconciler) rememberListedKeys(ctx context.Context, pool *nodesv1.NodePool, nodes []corev1.Node) error {
	spec, listed := specKeys(pool), listedKeys(pool)
	stale := spec.labels.Difference(sets.New(pool.Status.ListedLabels...)).Len() > 0 ||
		spec.taints.Difference(sets.New(pool.Status.ListedTaints...)).Len() > 0
	for i := range nodes {
		if record, _, err := readPoolRecord(&nodes[i], pool.Name); err == nil &&
			(!listed.labels.HasAll(record.Labels...) || !listed.taints.HasAll(record.Taints...)) {
			stale = true
		}
	}
	if stale {
		var stored nodesv1.NodePool
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(pool), &stored); err != nil {
			return fmt.Errorf("reading the keys the pool listed: %w", err)
		}
		addListedKeys(pool, stored.Status.ListedLabels, stored.Status.ListedTaints)
	}
	addListedKeys(pool, sets.List(spec.labels), sets.List(spec.taints))
	return nil
}

// addListedKeys adds labels and taints to the pool's status lists, which it keeps sorted:
// a list in another order would be a change, and a write.
func addListedKeys(pool *nodesv1.NodePool, labels, taints []string) {
	if len(labels) > 0 {
		pool.Status.ListedLabels = sets.List(sets.New(pool.Status.ListedLabels...).Insert(labels...))
	}
	if len(taints) > 0 {
		pool.Status.ListedTaints = sets.List(sets.New(pool.Status.ListedTaints...).Insert(taints...))
	}
}

// patchStatus completes the status a pass found and writes it with one merge patch of
// the status subresource, only when it differs from orig's: a pass with nothing new to
// say writes nothing. passErr is the pass's error; only a pass without one has acted on
// the spec, so only such a pass moves observedGeneration. A new error is also told as a
// Warning event, once: a failure that repeats on every retry changes nothing.
func (r *NodePoolReconciler) patchStatus(ctx context.Context, orig, pool *nodesv1.NodePool, passErr error) error {
	// TODO(5): Patch the status when it changed, and tell a new error.
	// As in lesson 02: set the Ready condition, and observedGeneration when the
	// pass succeeded; patch the status only when it differs from orig's. Then,
	// when passErr is set and the Ready message is new (to orig, and to the API
	// server: r.toldAlready, asked before the patch), emit one Warning event
	// (EventReconcileError, note eventNote(message)). See "Events" in
	// docs/lesson-07.md.
	return nil
}

// toldAlready reports whether the pool's Ready condition, as the API server stores it,
// already holds message: then a pass before this one wrote it, and told it. A failing
// pass is retried within milliseconds, often before the cache shows the status patch of
// the pass before it; the cache's copy of the pool then says the error is new when it is
// not, and the event would go out twice (kubectl shows "x2": the same pool, at the same
// resourceVersion, since the second patch changes nothing). One read, only on a failing
// pass whose message the cache has not seen. When the read fails, tell.
func (r *NodePoolReconciler) toldAlready(ctx context.Context, pool *nodesv1.NodePool, message string) bool {
	var stored nodesv1.NodePool
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(pool), &stored); err != nil {
		return false
	}
	ready := meta.FindStatusCondition(stored.Status.Conditions, nodesv1.ConditionReady)
	return ready != nil && ready.Message == message
}

// setPoolReadyCondition sets the Ready condition from the pass's error and the member
// count. Its message holds counts and errors, never times, so that a pass that finds
// the same leaves the condition as it was.
func setPoolReadyCondition(pool *nodesv1.NodePool, passErr error) {
	// TODO(4): Set the Ready condition.
	// Set the Ready condition (meta.SetStatusCondition), with the pool's
	// generation: False ReconcileError with the error (cut to maxConditionMessage:
	// shorten) when passErr is set; else False NodesInConflict with the message
	// of the Conflict condition when that one is True; else False NoNodes when the
	// pool has no member; else True NodesConfigured. See "Status and printer
	// columns" in docs/lesson-07.md.
}

// setPoolConflictCondition sets the Conflict condition from conflicts, one line per
// member on which another pool holds a key of this pool (reconcileNodes, in the order of
// the nodes' names). Such members are left out of the pool's count, and the Ready
// condition says NodesInConflict.
func setPoolConflictCondition(pool *nodesv1.NodePool, conflicts []string) {
	condition := metav1.Condition{
		Type:               nodesv1.ConditionConflict,
		Status:             metav1.ConditionFalse,
		Reason:             nodesv1.ReasonNoConflict,
		Message:            "no other pool holds a key of this pool on its members",
		ObservedGeneration: pool.Generation,
	}
	if len(conflicts) > 0 {
		members := len(conflicts) + int(pool.Status.NodeCount)
		condition.Status, condition.Reason = metav1.ConditionTrue, nodesv1.ReasonKeysHeldByOtherPools
		condition.Message = shorten(fmt.Sprintf("%d of %d members carry another pool's value for a key of this pool; first: %s",
			len(conflicts), members, conflicts[0]), maxConditionMessage)
	}
	meta.SetStatusCondition(&pool.Status.Conditions, condition)
}

// reportDroppedRecords sets the UnreadableRecords condition and, when the pass dropped
// records it could not read (withPool), tells so with one Warning event: what the pool
// gave those nodes stays there, and only someone who reads the event can remove it.
// nodes are the nodes the pass went through, as it read them, and results what it did.
func (r *NodePoolReconciler) reportDroppedRecords(pool *nodesv1.NodePool, nodes []*corev1.Node, results []nodeResult) {
	var dropped []string
	for i, node := range nodes {
		if _, _, err := readPoolRecord(node, pool.Name); err != nil && results[i].err == nil {
			dropped = append(dropped, fmt.Sprintf("node %s: %v", node.Name, err))
		}
	}
	condition := metav1.Condition{
		Type:               nodesv1.ConditionUnreadableRecords,
		Status:             metav1.ConditionFalse,
		Reason:             nodesv1.ReasonRecordsRead,
		Message:            "every record of the pool on its nodes was readable",
		ObservedGeneration: pool.Generation,
	}
	if len(dropped) > 0 {
		message := fmt.Sprintf("dropped the unreadable record of %s; the labels and taints the pool gave there stay: first: %s",
			nodeCount(len(dropped)), dropped[0])
		condition.Status, condition.Reason = metav1.ConditionTrue, nodesv1.ReasonRecordsDropped
		condition.Message = shorten(message, maxConditionMessage)
		r.Recorder.Eventf(pool, nil, corev1.EventTypeWarning, EventRecordDropped, "Unlabel", "%s", eventNote(message))
	}
	meta.SetStatusCondition(&pool.Status.Conditions, condition)
}

// heldByOtherPools describes, sorted, the labels and taints of pool's spec that node
// does not carry as the pool gives them because another pool holds them there
// (claimedByOtherPools): "label tier (pool gold)". A pool whose value the node carries
// anyway has no conflict there.
func heldByOtherPools(node *corev1.Node, pool *nodesv1.NodePool, pools map[string]poolKeys) []string {
	claimedLabels, claimedTaints := claimedByOtherPools(node, pool.Name, pools)
	var held []string
	for _, key := range slices.Sorted(maps.Keys(pool.Spec.Labels)) {
		value, carried := node.Labels[key]
		if other, claimed := claimedLabels[key]; claimed && (!carried || value != pool.Spec.Labels[key]) {
			held = append(held, fmt.Sprintf("label %s (pool %s)", key, other))
		}
	}
	for _, t := range pool.Spec.Taints {
		other, claimed := claimedTaints[taintID(t)]
		if claimed && !slices.ContainsFunc(node.Spec.Taints, func(n corev1.Taint) bool {
			return n.Key == t.Key && n.Effect == t.Effect && n.Value == t.Value
		}) {
			held = append(held, fmt.Sprintf("taint %s (pool %s)", taintID(t), other))
		}
	}
	return held
}

// maxConditionMessage is the longest message the API server accepts in a condition
// (metav1.Condition's schema). A longer one makes it refuse the whole status patch.
const maxConditionMessage = 32768

// shorten cuts message to at most limit bytes, marking the cut with "...", and never in
// the middle of a character.
func shorten(message string, limit int) string {
	if len(message) <= limit {
		return message
	}
	return strings.ToValidUTF8(message[:limit-3], "") + "..."
}

// nodeCount says "1 node" or "n nodes".
func nodeCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}
