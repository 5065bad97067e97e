package controller

import (
	"context"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/api/nodes/v1"
)

// addPoolFinalizer adds the finalizer nodesv1.Finalizer to pool with a patch.
func (r *NodePoolReconciler) addPoolFinalizer(ctx context.Context, pool *nodesv1.NodePool) error {
	// TODO(1): Add the finalizer with a patch.
	// Add the pool's finalizer with a patch that never drops a finalizer someone
	// added after your read; log "Added the finalizer". See "Adding the
	// finalizer" in docs/lesson-06.md.
	return nil
}

// reconcileDelete takes back from every node what the pool gave it, then removes the
// finalizer so that the API server can delete the pool. The membership labels stay: they
// are not the pool's to remove. The RuntimeClass goes by garbage collection.
func (r *NodePoolReconciler) reconcileDelete(ctx context.Context, pool *nodesv1.NodePool) error {
	// TODO(3): Clean the nodes, then let the pool go.
	// Take back from every node what the pool gave; only once they are all clean,
	// remove the pool's finalizer, as carefully as it was added. A node that fails
	// keeps the pool (and its finalizer) for a retry. Nothing writes to the pool
	// after the finalizer's patch, and a pool already gone then is no error. See
	// "Deleting a pool" in docs/lesson-06.md.
	return nil
}
