package controller

import (
	"context"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/api/nodes/v1"
)

// addPoolFinalizer adds the finalizer nodesv1.Finalizer to pool with a patch.
func (r *NodePoolReconciler) addPoolFinalizer(ctx context.Context, pool *nodesv1.NodePool) error {
	// TODO(1): Add the finalizer with a patch.
	// Add nodesv1.Finalizer (controllerutil.AddFinalizer) and patch the pool with
	// the optimistic lock; log "Added the finalizer". See "Adding the finalizer"
	// in docs/lesson-06.md.
	return nil
}

// reconcileDelete takes back from every node what the pool gave it, then removes the
// finalizer so that the API server can delete the pool. The membership labels stay: they
// are not the pool's to remove. The RuntimeClass goes by garbage collection.
func (r *NodePoolReconciler) reconcileDelete(ctx context.Context, pool *nodesv1.NodePool) error {
	// TODO(3): Clean the nodes, then let the pool go.
	// Take everything back from the nodes (r.reconcileNodes, with TODO(2) done), and
	// only then remove nodesv1.Finalizer with a patch, if the pool has it. Write
	// nothing after that patch. See "Deleting a pool" in docs/lesson-06.md.
	return nil
}
