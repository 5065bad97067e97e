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
	// Every pod of the class must land on a member and be accepted there: the
	// pool's labels (a copy) as the node selector, and for each taint a toleration
	// of exactly that taint. A pool without labels has no selector, and a pool
	// with neither labels nor taints no scheduling at all. See "The RuntimeClass"
	// in docs/lesson-05.md.
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
	// Bring the RuntimeClass named like want in line, writing only what differs:
	// create it when there is none (one the cache does not show yet is no error);
	// never take over one the pool does not control (an error); replace one with
	// another handler, deleting the very object you compared; correct its
	// scheduling; else write nothing. Log each write. See "The RuntimeClass" in
	// docs/lesson-05.md.
	_ = want
	return nil
}
