package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
)

// addPoolFinalizer adds the finalizer nodesv1.Finalizer to pool with a patch.
func (r *NodePoolReconciler) addPoolFinalizer(ctx context.Context, pool *nodesv1.NodePool) error {
	orig := pool.DeepCopy()
	controllerutil.AddFinalizer(pool, nodesv1.Finalizer)
	// Finalizers are a list, which a merge patch replaces whole: the lock makes the API
	// server refuse the patch if someone added a finalizer of their own since our read,
	// instead of dropping it.
	if err := r.Patch(ctx, pool, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("adding the finalizer: %w", err)
	}
	log.FromContext(ctx).Info("Added the finalizer", "finalizer", nodesv1.Finalizer)
	return nil
}

// reconcileDelete takes back from every node what the pool gave it, then removes the
// finalizer so that the API server can delete the pool. The membership labels stay: they
// are not the pool's to remove. The RuntimeClass goes by garbage collection.
func (r *NodePoolReconciler) reconcileDelete(ctx context.Context, pool *nodesv1.NodePool) error {
	// A pool being deleted gives nothing to anyone (poolShare), so the usual pass over
	// the nodes takes everything back. Until every node is clean the finalizer stays,
	// and the queue retries: the pool cannot go before its labels do.
	// The deletion pass writes no status, but tells what it found and did in events, as
	// every pass does.
	var found passResult
	cleaned, err := r.reconcileNodes(ctx, pool, &found)
	r.recordPassEvents(pool, pool, &found)
	if err != nil {
		return err
	}
	if !controllerutil.ContainsFinalizer(pool, nodesv1.Finalizer) {
		return nil
	}
	orig := pool.DeepCopy()
	controllerutil.RemoveFinalizer(pool, nodesv1.Finalizer)
	err = r.Patch(ctx, pool, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
	switch {
	case apierrors.IsNotFound(err):
		// This pass read a stale copy of the pool from the cache, after an earlier pass
		// had let it go. The pool is gone, as this pass wanted.
		return nil
	case err != nil:
		return fmt.Errorf("removing the finalizer: %w", err)
	}
	log.FromContext(ctx).Info("Removed the finalizer: the nodes are clean", "finalizer", nodesv1.Finalizer, "cleaned", cleaned)
	// Nothing may write to the pool after this: once the last finalizer is gone the API
	// server deletes the pool, and a write would fail with "Precondition failed: UID in
	// precondition" (the error a pass that patches after removing the finalizer gets) or
	// NotFound.
	// The event is no such write: it is an Event object of its own, written in the
	// background, about a pool that may be gone by then. It comes after the patch so that
	// a pass that finds the pool gone tells nothing.
	r.Recorder.Eventf(pool, nil, corev1.EventTypeNormal, EventCleanupDone, "Finalize",
		"Took the pool's labels and taints back from %s", nodeCount(cleaned))
	return nil
}
