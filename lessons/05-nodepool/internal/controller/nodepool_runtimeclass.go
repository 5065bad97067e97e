package controller

import (
	"context"
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/05-nodepool/api/nodes/v1"
)

// newRuntimeClass returns the RuntimeClass pool asks for: its handler, a node selector of
// its labels, a toleration of each of its taints, and a controller OwnerReference to the
// pool, so that the garbage collector deletes it with the pool.
func (r *NodePoolReconciler) newRuntimeClass(pool *nodesv1.NodePool) (*nodev1.RuntimeClass, error) {
	rc := &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: nodesv1.RuntimeClassPrefix + pool.Name},
		Handler:    pool.Spec.Handler,
		Scheduling: poolScheduling(pool),
	}
	if err := controllerutil.SetControllerReference(pool, rc, r.Scheme); err != nil {
		return nil, fmt.Errorf("setting the controller reference: %w", err)
	}
	return rc, nil
}

// poolScheduling returns what the API server's RuntimeClass admission adds to every pod
// of the class: the pool's labels as a node selector, so the pod lands on a member, and a
// toleration of each of the pool's taints, so the members accept it. A pool with neither
// has no scheduling at all, as the API server stores it.
func poolScheduling(pool *nodesv1.NodePool) *nodev1.Scheduling {
	// TODO(6): Create the pool's RuntimeClass and keep it in line.
	// Return nil for a pool without labels and taints; else the pool's labels as
	// the node selector (a copy, nil when there are none) and, for each taint, a
	// toleration with the operator Equal and the taint's key, value and effect.
	// See "The RuntimeClass" in docs/lesson-05.md.
	return nil
}

// reconcileRuntimeClass creates the pool's RuntimeClass, or brings it in line with the
// pool, writing only what differs.
func (r *NodePoolReconciler) reconcileRuntimeClass(ctx context.Context, pool *nodesv1.NodePool) error {
	want, err := r.newRuntimeClass(pool)
	if err != nil {
		return err
	}
	// TODO(6): Create the RuntimeClass, or fix the one there.
	// Get the RuntimeClass named like want. Create want when there is none (a
	// Create refused with AlreadyExists means the cache is behind: no error);
	// return an error when the one there is not controlled by the pool; delete it
	// (with a UID precondition) when its handler differs; patch its scheduling
	// (client.MergeFrom) when that differs; else write nothing. Log what you do.
	// See "The RuntimeClass" in docs/lesson-05.md.
	_ = want
	return nil
}
