package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/07-nodepool-status-events/api/nodes/v1"
)

// passResult is what a pass found on the nodes, what it changed there, and how it ended.
// The pass fills it as it goes (reconcileNodes); report turns it into the status, the
// conditions and the events, in one place, once the pass is over.
type passResult struct {
	// sawNodes says the pass went through the nodes. A pass that failed before leaves the
	// counts and the conditions about the nodes as the last pass wrote them.
	sawNodes bool
	// members are the members that carry what the pool gives, in the order of their names.
	members []*corev1.Node
	// conflicts has a line for each member that carries someone else's value for a key of
	// the pool instead (conflictsOn): such a member is no member the pool can count on.
	conflicts []string
	// dropped has a line for each record the pass could not read, and dropped (withPool).
	dropped []string
	// changes are the nodes the pass changed, by kind of change.
	changes map[nodeChange][]*corev1.Node
	// err is the pass's error.
	err error
}

// report turns what the pass found into what a user sees: it tells the pass's events
// (recordPassEvents), computes the counts and the conditions from found, the Ready
// condition too, and writes the status (patchStatus). Nothing else sets them. The one
// part of the status written before is the keys the pool lists, which must be stored
// before any node gets them (rememberListedKeys).
func (r *NodePoolReconciler) report(ctx context.Context, orig, pool *nodesv1.NodePool, found *passResult) error {
	r.recordPassEvents(orig, pool, found)
	if found.sawNodes {
		// The status you read holds the last pass's counts: start from zero.
		pool.Status.NodeCount, pool.Status.Allocatable = 0, nil
		for _, node := range found.members {
			countMember(pool, node)
		}
		meta.SetStatusCondition(&pool.Status.Conditions, conflictCondition(pool, found))
		meta.SetStatusCondition(&pool.Status.Conditions, unreadableRecordsCondition(pool, found))
	}
	setPoolReadyCondition(pool, found)
	return r.patchStatus(ctx, orig, pool, found.err)
}

// countMember adds node, a member of pool, to the pool's status: one more node, and its
// allocatable resources added to the pool's.
func countMember(pool *nodesv1.NodePool, node *corev1.Node) {
	pool.Status.NodeCount++
	for name, quantity := range node.Status.Allocatable {
		if pool.Status.Allocatable == nil {
			pool.Status.Allocatable = corev1.ResourceList{}
		}
		sum := pool.Status.Allocatable[name]
		sum.Add(quantity)
		pool.Status.Allocatable[name] = sum
	}
}

// poolKeys are the label keys and taints (key:effect) a pool lists: what it may give a
// node, and take back.
type poolKeys struct {
	labels, taints sets.Set[string]
}

// specKeys returns the keys pool's spec lists.
func specKeys(pool *nodesv1.NodePool) poolKeys {
	keys := poolKeys{labels: sets.KeySet(pool.Spec.Labels), taints: sets.New[string]()}
	for _, t := range pool.Spec.Taints {
		keys.taints.Insert(taintID(t))
	}
	return keys
}

// listedKeys returns the keys pool lists: its spec's, and those its earlier specs
// listed, which nodes may still carry (the status keeps them: rememberListedKeys).
func listedKeys(pool *nodesv1.NodePool) poolKeys {
	keys := specKeys(pool)
	keys.labels.Insert(pool.Status.ListedLabels...)
	keys.taints.Insert(pool.Status.ListedTaints...)
	return keys
}

// within returns the part of record that keys lists. A record is an annotation on the
// node, which the node's kubelet may write (the NodeRestriction admission plugin lets it
// change its own node's annotations, not its taints): what it says a pool gave is only
// believed of the keys that pool lists.
func (record poolRecord) within(keys poolKeys) poolRecord {
	labels := maps.Clone(record.Labels)
	maps.DeleteFunc(labels, func(key, _ string) bool { return !keys.labels.Has(key) })
	return poolRecord{
		Labels: labels,
		Taints: slices.DeleteFunc(slices.Clone(record.Taints), func(t corev1.Taint) bool { return !keys.taints.Has(taintID(t)) }),
	}
}

// keys returns the keys record lists.
func (record poolRecord) keys() poolKeys {
	keys := poolKeys{labels: sets.KeySet(record.Labels), taints: sets.New[string]()}
	for _, t := range record.Taints {
		keys.taints.Insert(taintID(t))
	}
	return keys
}

// rememberListedKeys makes the pool's status list every key its spec lists, and every
// key of an earlier spec that a record on a node still lists: status.listedLabels and
// status.listedTaints bound what a record on a node can make the pool take back
// (listedKeys). The record can be forged, the status cannot: only the controller
// writes it.
//
// A key is stored before any node gets it, as the finalizer is: a pass that patched the
// nodes and then failed to write its status would leave a key that no later spec could
// take back. So when the lists grow, they are patched at once, before the pass touches
// a node; the status patch at the end of the pass writes the rest.
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
		if keys, ok := recordedKeys(&nodes[i], pool.Name); ok {
			if !listed.labels.IsSuperset(keys.labels) || !listed.taints.IsSuperset(keys.taints) {
				stale = true
			}
		}
	}
	if stale {
		var stored nodesv1.NodePool
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(pool), &stored); err != nil {
			return fmt.Errorf("reading the keys the pool listed: %w", err)
		}
		addListedKeys(pool, stored.Status.ListedLabels, stored.Status.ListedTaints)
	}
	if err := r.forgetUnrecordedKeys(ctx, pool, spec); err != nil {
		return err
	}
	before := pool.DeepCopy()
	addListedKeys(pool, sets.List(spec.labels), sets.List(spec.taints))
	if slices.Equal(before.Status.ListedLabels, pool.Status.ListedLabels) &&
		slices.Equal(before.Status.ListedTaints, pool.Status.ListedTaints) {
		return nil
	}
	// A copy takes the answer, which holds the spec as the API server has it now: this
	// pass acts on the spec whose keys it stored.
	written := pool.DeepCopy()
	err := r.Status().Patch(ctx, written, client.MergeFrom(before))
	if err != nil {
		return fmt.Errorf("storing the keys the pool gives: %w", err)
	}
	r.statusWrites.Wrote(written)
	return nil
}

// forgetUnrecordedKeys takes off the pool's status lists the keys that spec does not list
// and no record of the pool on a node lists either: no node carries them from the pool
// any more. The nodes are read from the API server, not from the cache, which may not
// show the record of the last pass's patch yet: one list, only on the passes of a pool
// whose status lists more than its spec, until the nodes are clean.
func (r *NodePoolReconciler) forgetUnrecordedKeys(ctx context.Context, pool *nodesv1.NodePool, spec poolKeys) error {
	extraLabels := sets.New(pool.Status.ListedLabels...).Difference(spec.labels)
	extraTaints := sets.New(pool.Status.ListedTaints...).Difference(spec.taints)
	if extraLabels.Len() == 0 && extraTaints.Len() == 0 {
		return nil
	}
	var nodes corev1.NodeList
	if err := r.APIReader.List(ctx, &nodes); err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	for i := range nodes.Items {
		if keys, ok := recordedKeys(&nodes.Items[i], pool.Name); ok {
			extraLabels = extraLabels.Difference(keys.labels)
			extraTaints = extraTaints.Difference(keys.taints)
		}
	}
	pool.Status.ListedLabels = slices.DeleteFunc(pool.Status.ListedLabels, extraLabels.Has)
	pool.Status.ListedTaints = slices.DeleteFunc(pool.Status.ListedTaints, extraTaints.Has)
	return nil
}

// recordedKeys returns the keys the record of the NodePool named pool on node lists, and
// whether the record could be read (readPoolRecord).
func recordedKeys(node *corev1.Node, pool string) (poolKeys, bool) {
	record, _, err := readPoolRecord(node, pool)
	keys := record.keys()
	return keys, err == nil
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

// patchStatus completes the status report computed and writes it with one merge patch
// of the status subresource, only when it differs from orig's: a pass with nothing new
// to say writes nothing. passErr is the pass's error; only a pass without one has acted
// on the spec, so only such a pass moves observedGeneration. A new error is also told as
// a Warning event, once: a failure that repeats on every retry changes nothing.
func (r *NodePoolReconciler) patchStatus(ctx context.Context, orig, pool *nodesv1.NodePool, passErr error) error {
	if passErr == nil {
		pool.Status.ObservedGeneration = pool.Generation
	}
	if equality.Semantic.DeepEqual(orig.Status, pool.Status) {
		return nil
	}

	ready := meta.FindStatusCondition(pool.Status.Conditions, nodesv1.ConditionReady)
	was := meta.FindStatusCondition(orig.Status.Conditions, nodesv1.ConditionReady)
	newError := passErr != nil && (was == nil || was.Message != ready.Message) &&
		!r.toldAlready(ctx, pool, ready.Message)
	log.FromContext(ctx).Info("Updating status", "nodeCount", pool.Status.NodeCount,
		"ready", ready.Status, "reason", ready.Reason)
	// A merge patch carries no resourceVersion: it cannot conflict with a spec change.
	err := r.Status().Patch(ctx, pool, client.MergeFrom(orig))
	if err != nil {
		return fmt.Errorf("writing the status: %w", err)
	}
	// The write put the API server's answer into pool: its resourceVersion tells the next
	// pass whether the cache shows this write yet.
	r.statusWrites.Wrote(pool)
	if newError {
		r.Recorder.Eventf(pool, nil, corev1.EventTypeWarning, EventReconcileError, "Reconcile", "%s", eventNote(ready.Message))
	}
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

// setPoolReadyCondition sets the Ready condition from what the pass found. Its message
// holds counts and errors, never times, so that a pass that finds the same leaves the
// condition as it was.
func setPoolReadyCondition(pool *nodesv1.NodePool, found *passResult) {
	ready := metav1.Condition{
		Type:               nodesv1.ConditionReady,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: pool.Generation,
	}
	switch {
	case found.err != nil:
		ready.Reason, ready.Message = nodesv1.ReasonReconcileError, shorten(found.err.Error(), maxConditionMessage)
	case len(found.conflicts) > 0:
		ready.Reason, ready.Message = nodesv1.ReasonNodesInConflict, conflictCondition(pool, found).Message
	case len(found.members) == 0:
		ready.Reason = nodesv1.ReasonNoNodes
		ready.Message = fmt.Sprintf("no node has the label %s", poolMemberLabel(pool.Name))
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, nodesv1.ReasonNodesConfigured
		ready.Message = fmt.Sprintf("%s with the pool's labels and taints", nodeCount(len(found.members)))
	}
	meta.SetStatusCondition(&pool.Status.Conditions, ready)
}

// conflictCondition is the Conflict condition of what the pass found: True when members
// carry someone else's value for a key of this pool (found.conflicts, in the order of the
// nodes' names). Such members are left out of the pool's count, and the Ready condition
// says NodesInConflict, with this message.
func conflictCondition(pool *nodesv1.NodePool, found *passResult) metav1.Condition {
	condition := metav1.Condition{
		Type:               nodesv1.ConditionConflict,
		Status:             metav1.ConditionFalse,
		Reason:             nodesv1.ReasonNoConflict,
		Message:            "no member carries someone else's value for a key of this pool",
		ObservedGeneration: pool.Generation,
	}
	if len(found.conflicts) > 0 {
		members := len(found.conflicts) + len(found.members)
		condition.Status, condition.Reason = metav1.ConditionTrue, nodesv1.ReasonKeysHeldByOthers
		condition.Message = shorten(fmt.Sprintf("%d of %d members carry someone else's value for a key of this pool; first: %s",
			len(found.conflicts), members, found.conflicts[0]), maxConditionMessage)
	}
	return condition
}

// unreadableRecordsCondition is the UnreadableRecords condition of what the pass found:
// True when it dropped records it could not read (found.dropped). What the pool gave
// those nodes stays there.
func unreadableRecordsCondition(pool *nodesv1.NodePool, found *passResult) metav1.Condition {
	condition := metav1.Condition{
		Type:               nodesv1.ConditionUnreadableRecords,
		Status:             metav1.ConditionFalse,
		Reason:             nodesv1.ReasonRecordsRead,
		Message:            "every record of the pool on its nodes was readable",
		ObservedGeneration: pool.Generation,
	}
	if len(found.dropped) > 0 {
		condition.Status, condition.Reason = metav1.ConditionTrue, nodesv1.ReasonRecordsDropped
		condition.Message = shorten(fmt.Sprintf("dropped the unreadable record of %s; the labels and taints the pool gave there stay: first: %s",
			nodeCount(len(found.dropped)), found.dropped[0]), maxConditionMessage)
	}
	return condition
}

// conflictsOn describes, sorted, the labels and taints of pool's spec that node carries
// with someone else's value, which the pool leaves as they are (withPool): "label
// tier=1 (pool gold)", naming the pool whose record gives that value, if any. A key
// that carries the pool's value, whoever set it, is no conflict.
func conflictsOn(node *corev1.Node, pool *nodesv1.NodePool) []string {
	held, _ := heldRecord(node, pool)
	var conflicts []string
	for _, key := range slices.Sorted(maps.Keys(pool.Spec.Labels)) {
		value, carried := node.Labels[key]
		if _, ours := held.Labels[key]; !carried || ours || value == pool.Spec.Labels[key] {
			continue
		}
		gives := func(other poolRecord) bool { v, ok := other.Labels[key]; return ok && v == value }
		conflicts = append(conflicts, fmt.Sprintf("label %s=%s%s", key, value, givenBy(node, pool.Name, gives)))
	}
	for _, t := range pool.Spec.Taints {
		for _, n := range node.Spec.Taints {
			same := func(o corev1.Taint) bool { return sameTaint(o, n) }
			if taintID(n) != taintID(t) || n.Value == t.Value || slices.ContainsFunc(held.Taints, same) {
				continue
			}
			gives := func(other poolRecord) bool { return slices.ContainsFunc(other.Taints, same) }
			conflicts = append(conflicts, fmt.Sprintf("taint %s%s", n.ToString(), givenBy(node, pool.Name, gives)))
		}
	}
	return conflicts
}

// givenBy returns " (pool NAME)" for the first pool other than pool whose record on node
// gives what gives says, or "" when none does. A record may be forged: this only names.
func givenBy(node *corev1.Node, pool string, gives func(poolRecord) bool) string {
	for _, other := range recordedPools(node) {
		if other == pool {
			continue
		}
		if record, _, err := readPoolRecord(node, other); err == nil && gives(record) {
			return fmt.Sprintf(" (pool %s)", other)
		}
	}
	return ""
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
