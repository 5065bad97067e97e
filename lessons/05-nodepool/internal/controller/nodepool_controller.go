package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/05-nodepool/api/nodes/v1"
)

// NodePoolReconciler gives the members of every NodePool the pool's labels and taints,
// takes them back from nodes that leave, and keeps the pool's RuntimeClass in line with
// its spec.
type NodePoolReconciler struct {
	client.Client
	Scheme *runtime.Scheme

	// APIReader reads the API server directly. A node whose patch conflicted is read
	// again through it: the cache may still hold the very version that conflicted.
	APIReader client.Reader
}

// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools,verbs=get;list;watch
// The RuntimeClass's OwnerReference blocks the pool's deletion (blockOwnerDeletion); an
// API server with the OwnerReferencesPermissionEnforcement admission plugin allows that
// only to a client that may update the pool's finalizers.
// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools/finalizers,verbs=update
// TODO: Let the manager read, watch and patch nodes (never update them: see "Patching
// a node you do not own"), and read, watch, create, patch and delete
// RuntimeClasses (group node.k8s.io): two RBAC markers like the ones above. See
// "Your tasks" in docs/lesson-05.md.

// Reconcile gives the pool's members its labels and taints, takes them back from the
// nodes that left, and creates or updates the pool's RuntimeClass. It is called for every
// change of a NodePool's spec, of its RuntimeClass and of the nodes that concern it.
func (r *NodePoolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// TODO: Get the NodePool the request names (it has a name and no namespace). When it
	// is gone (apierrors.IsNotFound), the pass is done: return no error. Any other
	// error goes back to the queue, wrapped. See "The Reconcile skeleton" in
	// docs/lesson-05.md.

	// TODO: Bring the nodes (r.reconcileNodes) and the RuntimeClass
	// (r.reconcileRuntimeClass) in line with the pool. Do both even when the first
	// fails, and return both errors (errors.Join): the queue retries the pass.
	return ctrl.Result{}, nil
}

// reconcileNodes brings every node that concerns the pool in line with it, one node at a
// time, and goes on past a node that fails: the others still get what they need.
func (r *NodePoolReconciler) reconcileNodes(ctx context.Context, pool *nodesv1.NodePool) error {
	// The cache holds every node already (the controller watches them), so listing them
	// all and keeping those that concern the pool costs no request. A field index would
	// spare the loop on clusters of thousands of nodes.
	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes); err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	// The cache lists in no particular order. Sorted, the nodes are patched, logged and
	// reported in the same order on every pass, and so is a message that joins their errors.
	slices.SortFunc(nodes.Items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	var errs []error
	for i := range nodes.Items {
		node := &nodes.Items[i]
		if !concernsPool(node, pool.Name) {
			continue
		}
		if _, err := r.syncNode(ctx, pool, node); err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", node.Name, err))
		}
	}
	return errors.Join(errs...)
}

// syncNode patches node so that it carries what pool gives it, only when something
// differs, and says what changed.
//
// A merge patch replaces a list whole, and taints are a list: a patch computed from our
// copy of the node would put back the taints it had when we read it, dropping any that
// someone added since. The optimistic lock sends our copy's resourceVersion along, so
// that the API server refuses the patch (409 Conflict) if the node changed since. Then
// we read the node again, from the API server, and compute the patch anew, as the node
// lifecycle controller does for its own taints. Nothing anyone else wrote is lost.
func (r *NodePoolReconciler) syncNode(ctx context.Context, pool *nodesv1.NodePool, node *corev1.Node) (nodeChange, error) {
	// TODO: Compute the node the pool wants (withPool) and patch it only when it
	// changed, with client.MergeFromWithOptions(node,
	// client.MergeFromWithOptimisticLock{}); on a conflict read the node again
	// through r.APIReader and start over (retry.RetryOnConflict). Ignore NotFound;
	// log "Patched node" with the node and the change. See "Patching a node you
	// do not own" in docs/lesson-05.md.
	return nodeUnchanged, nil
}

// SetupWithManager starts the controller. A pool is reconciled when its spec changes
// (GenerationChangedPredicate: metadata edits change nothing a pass does), when its
// RuntimeClass changes (Owns), and when a node that concerns it changes (Watches, with
// poolsOfNode telling which pools a node concerns, and a predicate that drops the
// updates no pass reads).
func (r *NodePoolReconciler) SetupWithManager(mgr ctrl.Manager) error {
	// TODO: Reconcile a pool when its RuntimeClass changes (Owns) and when a node that
	// concerns it changes: Watches with handler.EnqueueRequestsFromMapFunc(poolsOfNode)
	// and the predicate poolNodeChangedPredicate(). See "Watching nodes" in
	// docs/lesson-05.md.
	return ctrl.NewControllerManagedBy(mgr).
		For(&nodesv1.NodePool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("nodepool").
		Complete(r)
}
