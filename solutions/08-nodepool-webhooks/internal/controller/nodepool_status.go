//stage:7
package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/08-nodepool-webhooks/api/nodes/v1"
)

// countMember adds node, a member of pool, to the pool's status: one more node, and its
// allocatable resources added to the pool's.
func countMember(pool *nodesv1.NodePool, node *corev1.Node) {
	//lesson:todo Add one to status.nodeCount and add each of node's allocatable quantities
	//lesson:todo to status.allocatable (a nil map at first). See "Status and printer
	//lesson:todo columns" in docs/lesson-07.md.
	pool.Status.NodeCount++
	for name, quantity := range node.Status.Allocatable {
		if pool.Status.Allocatable == nil {
			pool.Status.Allocatable = corev1.ResourceList{}
		}
		sum := pool.Status.Allocatable[name]
		sum.Add(quantity)
		pool.Status.Allocatable[name] = sum
	}
	//lesson:end
}

// patchStatus completes the status a pass found and writes it with one merge patch of
// the status subresource, only when it differs from orig's: a pass with nothing new to
// say writes nothing. passErr is the pass's error; only a pass without one has acted on
// the spec, so only such a pass moves observedGeneration. A new error is also told as a
// Warning event, once: a failure that repeats on every retry changes nothing.
func (r *NodePoolReconciler) patchStatus(ctx context.Context, orig, pool *nodesv1.NodePool, passErr error) error {
	//lesson:todo As in lesson 02: set the Ready condition, and observedGeneration when the
	//lesson:todo pass succeeded; patch the status only when it differs from orig's. Then,
	//lesson:todo when passErr is set and the Ready message is new, emit one Warning event
	//lesson:todo (EventReconcileError, note eventNote(message)). See "Events" in
	//lesson:todo docs/lesson-07.md.
	//lesson:stub return nil
	setPoolReadyCondition(pool, passErr)
	if passErr == nil {
		pool.Status.ObservedGeneration = pool.Generation
	}
	if equality.Semantic.DeepEqual(orig.Status, pool.Status) {
		return nil
	}

	ready := meta.FindStatusCondition(pool.Status.Conditions, nodesv1.ConditionReady)
	log.FromContext(ctx).Info("Updating status", "nodeCount", pool.Status.NodeCount,
		"ready", ready.Status, "reason", ready.Reason)
	// A merge patch carries no resourceVersion: it cannot conflict with a spec change.
	if err := r.Status().Patch(ctx, pool, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("patching the status: %w", err)
	}
	if was := meta.FindStatusCondition(orig.Status.Conditions, nodesv1.ConditionReady); passErr != nil &&
		(was == nil || was.Message != ready.Message) {
		r.Recorder.Eventf(pool, nil, corev1.EventTypeWarning, EventReconcileError, "Reconcile", "%s", eventNote(ready.Message))
	}
	return nil
	//lesson:end
}

// setPoolReadyCondition sets the Ready condition from the pass's error and the member
// count. Its message holds counts and errors, never times, so that a pass that finds
// the same leaves the condition as it was.
func setPoolReadyCondition(pool *nodesv1.NodePool, passErr error) {
	//lesson:todo Set the Ready condition (meta.SetStatusCondition): False ReconcileError
	//lesson:todo with the error when passErr is set, else False NoNodes when the pool has
	//lesson:todo no member, else True NodesConfigured. See "Status and printer columns" in
	//lesson:todo docs/lesson-07.md.
	ready := metav1.Condition{
		Type:               nodesv1.ConditionReady,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: pool.Generation,
	}
	switch {
	case passErr != nil:
		ready.Reason, ready.Message = nodesv1.ReasonReconcileError, passErr.Error()
	case pool.Status.NodeCount == 0:
		ready.Reason = nodesv1.ReasonNoNodes
		ready.Message = fmt.Sprintf("no node has the label %s", poolMemberLabel(pool.Name))
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, nodesv1.ReasonNodesConfigured
		ready.Message = fmt.Sprintf("%s with the pool's labels and taints", nodeCount(int(pool.Status.NodeCount)))
	}
	meta.SetStatusCondition(&pool.Status.Conditions, ready)
	//lesson:end
}

// nodeCount says "1 node" or "n nodes".
func nodeCount(n int) string {
	if n == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d nodes", n)
}

//stage:end
