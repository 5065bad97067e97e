package controller

import (
	"context"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/api/nodes/v1"
)

// PoolFinalizer holds a deleted NodePool in the API server until the controller has
// taken back what the pool gave its nodes.
const PoolFinalizer = "nodes.workshop.dev/cleanup"

// addPoolFinalizer adds PoolFinalizer to pool with a patch.
func (r *NodePoolReconciler) addPoolFinalizer(ctx context.Context, pool *nodesv1.NodePool) error {
	// TODO: Add PoolFinalizer (controllerutil.AddFinalizer) and patch the pool with
	// the optimistic lock; log "Added the finalizer". See "Adding the finalizer"
	// in docs/lesson-06.md.
	return nil
}

// reconcileDelete takes back from every node what the pool gave it, then removes
// PoolFinalizer so that the API server can delete the pool. The membership labels stay:
// they are not the pool's to remove. The RuntimeClass goes by garbage collection.
func (r *NodePoolReconciler) reconcileDelete(ctx context.Context, pool *nodesv1.NodePool) error {
	// TODO: Take everything back from the nodes (r.reconcileNodes: see task 2), and
	// only then remove PoolFinalizer with a patch, if the pool has it. Write
	// nothing after that patch. See "Deleting a pool" in docs/lesson-06.md.
	return nil
}
