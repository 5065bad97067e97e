package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/07-nodepool-status-events/api/nodes/v1"
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

	// Recorder writes the pool's events (events.k8s.io/v1).
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools,verbs=get;list;watch;patch
// The RuntimeClass's OwnerReference blocks the pool's deletion (blockOwnerDeletion); an
// API server with the OwnerReferencesPermissionEnforcement admission plugin allows that
// only to a client that may update the pool's finalizers.
// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools/finalizers,verbs=update
//lesson:todo Let the manager write the pools' status subresource, and create and patch
//lesson:todo the Events the recorder writes (group events.k8s.io). See "Events" in
//lesson:todo docs/lesson-07.md.
// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
//lesson:end
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=node.k8s.io,resources=runtimeclasses,verbs=get;list;watch;create;patch;delete

// Reconcile gives the pool's members its labels and taints, takes them back from the
// nodes that left, creates or updates the pool's RuntimeClass, and reports what it found
// in the pool's status; when the pool is deleted, it takes back everything the pool gave
// before letting it go. It is called for every change of a NodePool's spec, of its
// RuntimeClass and of the nodes that concern it.
func (r *NodePoolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	// NotFound means the pool is gone, and its finalizer saw to its nodes before it went.
	// The garbage collector deletes its RuntimeClass through the OwnerReference.
	var pool nodesv1.NodePool
	if err := r.Get(ctx, req.NamespacedName, &pool); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting NodePool: %w", err)
	}

	// A pool being deleted is cleaned up, never given a finalizer again: adding one now
	// would hold it forever if the pass that removes it had already run.
	// Its branch returns before the status patch below is deferred: once the finalizer is
	// gone, the pool may be gone too, and a status patch would fail.
	if !pool.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, &pool)
	}

	// The finalizer must be stored before the pass gives any node anything: from then on
	// the API server cannot delete the pool before reconcileDelete has run. The pass goes
	// on once the patch is through, rather than waiting for the patch's own update
	// event: GenerationChangedPredicate drops it, since a finalizer is no spec change.
	if !controllerutil.ContainsFinalizer(&pool, nodesv1.Finalizer) {
		if err := r.addPoolFinalizer(ctx, &pool); err != nil {
			// NotFound: the pool was deleted after the cache showed it, before it had our
			// finalizer, so before any node got anything from it.
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}

	// Snapshot the pool before the pass fills in its status. However the pass ends, the
	// deferred patch sends the difference from the snapshot, once, so that an error shows
	// in the Ready condition and not only in this log.
	//lesson:todo Snapshot the pool and defer r.patchStatus with the snapshot and the pass's
	//lesson:todo error (retErr), joining the patch's own error into retErr, as in lesson 02.
	//lesson:todo Here, after the deletion branch: see "The status patch and the finalizer"
	//lesson:todo in docs/lesson-07.md.
	orig := pool.DeepCopy()
	defer func() {
		if err := r.patchStatus(ctx, orig, &pool, retErr); err != nil {
			retErr = errors.Join(retErr, err)
		}
	}()
	//lesson:end

	// The nodes and the RuntimeClass do not depend on each other: a failure of one must
	// not hold the other back. Both errors are returned, and the queue retries the pass.
	_, nodesErr := r.reconcileNodes(ctx, &pool)
	runtimeClassErr := r.reconcileRuntimeClass(ctx, &pool)
	return ctrl.Result{}, errors.Join(nodesErr, runtimeClassErr)
}

// reconcileNodes brings every node that concerns the pool in line with it, one node at a
// time, and goes on past a node that fails: the others still get what they need. It
// counts the members and their resources into the pool's status, tells each change with
// an event, and returns how many nodes it changed.
func (r *NodePoolReconciler) reconcileNodes(ctx context.Context, pool *nodesv1.NodePool) (int, error) {
	// The cache holds every node already (the controller watches them), so listing them
	// all and keeping those that concern the pool costs no request. A field index would
	// spare the loop on clusters of thousands of nodes.
	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes); err != nil {
		return 0, fmt.Errorf("listing nodes: %w", err)
	}
	// The cache lists in no particular order. Sorted, the nodes are patched, logged and
	// reported in the same order on every pass, and so is a message that joins their errors.
	slices.SortFunc(nodes.Items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	//lesson:todo Start the pool's status.nodeCount and status.allocatable from zero; the
	//lesson:todo loop below counts each member in (countMember).
	// The status you read holds the last pass's counts: start from zero.
	pool.Status.NodeCount, pool.Status.Allocatable = 0, nil
	//lesson:end
	changed := 0
	var errs []error
	for i := range nodes.Items {
		node := &nodes.Items[i]
		if !concernsPool(node, pool.Name) {
			continue
		}
		//lesson:todo Count node into the status when it is a member.
		if isPoolMember(node, pool.Name) {
			countMember(pool, node)
		}
		//lesson:end
		change, err := r.syncNode(ctx, pool, node)
		if err != nil {
			errs = append(errs, fmt.Errorf("node %s: %w", node.Name, err))
			continue
		}
		if change != nodeUnchanged {
			changed++
			r.recordNodeChange(pool, node, change)
		}
	}
	return changed, errors.Join(errs...)
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
	var change nodeChange
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		want, c, err := withPool(node, pool)
		if err != nil || c == nodeUnchanged {
			change = c
			return err
		}
		err = r.Patch(ctx, want, client.MergeFromWithOptions(node, client.MergeFromWithOptimisticLock{}))
		if apierrors.IsConflict(err) {
			fresh := &corev1.Node{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(node), fresh); err != nil {
				return client.IgnoreNotFound(err)
			}
			node = fresh
			return err
		}
		if err != nil {
			// A node deleted meanwhile needs nothing from us (nor does one that is gone
			// when we read it again above).
			return client.IgnoreNotFound(err)
		}
		change = c
		log.FromContext(ctx).Info("Patched node", "node", node.Name, "change", c)
		return nil
	})
	return change, err
}

// SetupWithManager starts the controller. A pool is reconciled when its spec changes
// (GenerationChangedPredicate: metadata edits change nothing a pass does), when its
// RuntimeClass changes (Owns), and when a node that concerns it changes (Watches, with
// poolsOfNode telling which pools a node concerns, and a predicate that drops the
// updates no pass reads).
func (r *NodePoolReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&nodesv1.NodePool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&nodev1.RuntimeClass{}).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(poolsOfNode),
			builder.WithPredicates(poolNodeChangedPredicate())).
		Named("nodepool").
		Complete(r)
}
