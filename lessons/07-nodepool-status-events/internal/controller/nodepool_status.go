package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/07-nodepool-status-events/api/nodes/v1"
)

// countMember adds node, a member of pool, to the pool's status: one more node, and its
// allocatable resources added to the pool's.
func countMember(pool *nodesv1.NodePool, node *corev1.Node) {
	// TODO: Add one to status.nodeCount and add each of node's allocatable quantities
	// to status.allocatable (a nil map at first). See "Status and printer
	// columns" in docs/lesson-07.md.
}

// patchStatus completes the status a pass found and writes it with one merge patch of
// the status subresource, only when it differs from orig's: a pass with nothing new to
// say writes nothing. passErr is the pass's error; only a pass without one has acted on
// the spec, so only such a pass moves observedGeneration. A new error is also told as a
// Warning event, once: a failure that repeats on every retry changes nothing.
func (r *NodePoolReconciler) patchStatus(ctx context.Context, orig, pool *nodesv1.NodePool, passErr error) error {
	// TODO: As in lesson 02: set the Ready condition, and observedGeneration when the
	// pass succeeded; patch the status only when it differs from orig's. Then,
	// when passErr is set and the Ready message is new, emit one Warning event
	// (EventReconcileError, note eventNote(message)). See "Events" in
	// docs/lesson-07.md.
	return nil
}

// setPoolReadyCondition sets the Ready condition from the pass's error and the member
// count. Its message holds counts and errors, never times, so that a pass that finds
// the same leaves the condition as it was.
func setPoolReadyCondition(pool *nodesv1.NodePool, passErr error) {
	// TODO: Set the Ready condition (meta.SetStatusCondition): False ReconcileError
	// with the error when passErr is set, else False NoNodes when the pool has
	// no member, else True NodesConfigured. See "Status and printer columns" in
	// docs/lesson-07.md.
}

// nodeCount says "1 node" or "n nodes".
func nodeCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}
