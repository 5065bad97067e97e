package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

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

	"github.com/kube-workshop/operator-workshop/shared/batcherr"
	"github.com/kube-workshop/operator-workshop/shared/statuswrite"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
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

	// statusWrites remembers the resourceVersion of the last status write of each pool,
	// until the cache shows it.
	statusWrites statuswrite.Tracker
}

// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools,verbs=get;list;watch;patch
// The RuntimeClass's OwnerReference blocks the pool's deletion (blockOwnerDeletion); an
// API server with the OwnerReferencesPermissionEnforcement admission plugin allows that
// only to a client that may update the pool's finalizers.
// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools/finalizers,verbs=update
// +kubebuilder:rbac:groups=nodes.workshop.dev,resources=nodepools/status,verbs=get;update;patch
// A cluster-scoped pool's events go to the namespace default, and only there: a Role
// of that namespace grants them (config/rbac/role_binding.yaml binds it).
// +kubebuilder:rbac:groups=events.k8s.io,namespace=default,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=node.k8s.io,resources=runtimeclasses,verbs=get;list;watch;create;patch;delete

// Reconcile brings the nodes that concern the pool and the pool's RuntimeClass in line
// with its spec: the members get the pool's labels and taints, the nodes that left lose
// them, and the RuntimeClass is created or updated. It is called for every change of a
// NodePool's spec, of its RuntimeClass and of the nodes that concern it.
func (r *NodePoolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	// NotFound means the pool is gone, and the pass is done. The garbage collector deletes
	// its RuntimeClass through the OwnerReference. Its nodes keep what it gave them, unless
	// a finalizer held the pool until a pass had taken it back (lesson 06).
	var pool nodesv1.NodePool
	if err := r.Get(ctx, req.NamespacedName, &pool); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting NodePool: %w", err)
	}

	// A pool being deleted gets its last pass, which takes back everything the pool gave
	// before letting it go (reconcileDelete). It never gets the finalizer again: adding one
	// now would hold it forever if the pass that removes it had already run.
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

	// What the pass finds on the nodes, and how it ends, go into one value: the status,
	// the conditions and the events are computed from it in one place (report), once the
	// pass is over.
	var found passResult

	// Snapshot the pool before the pass. However the pass ends, the deferred report
	// computes the status from what it found and sends the difference from the snapshot,
	// once, so that an error shows in the Ready condition and not only in this log. The
	// deletion branch above returns before this: once the finalizer is gone the pool may
	// be gone too, and a status patch would fail.
	//
	// The cache shows a write a moment after it is made, and our status writes start no
	// pass (GenerationChangedPredicate): this pass may read the pool as it was before our
	// last one. Compared with such a copy, a status that went back to what it was before
	// that write (a failure retried, a node back) looks unchanged and is never written. So
	// a pool older than our last status write is read again from the API server.
	if r.statusWrites.Predates(&pool) {
		if err := r.APIReader.Get(ctx, req.NamespacedName, &pool); err != nil {
			// NotFound: deleted since the cache's copy, which is no error. Its delete event
			// brings the pass that finds it gone in the cache too.
			return ctrl.Result{}, client.IgnoreNotFound(fmt.Errorf("reading the NodePool from the API server: %w", err))
		}
	}
	orig := pool.DeepCopy()
	defer func() {
		found.err = retErr
		if err := r.report(ctx, orig, &pool, &found); err != nil {
			retErr = errors.Join(retErr, err)
		}
	}()

	// The nodes and the RuntimeClass do not depend on each other: a failure of one must
	// not hold the other back. Both errors are returned, and the queue retries the pass.
	_, nodesErr := r.reconcileNodes(ctx, &pool, &found)
	runtimeClassErr := r.reconcileRuntimeClass(ctx, &pool)
	return ctrl.Result{}, errors.Join(nodesErr, runtimeClassErr)
}

// reconcileNodes brings every node that concerns the pool in line with it, several nodes
// at a time (syncNodes), and goes on past a node that fails: the others still get what
// they need. It returns how many nodes it changed; the log names each. What it finds on
// the nodes, and what it changes there, goes into found.
func (r *NodePoolReconciler) reconcileNodes(ctx context.Context, pool *nodesv1.NodePool, found *passResult) (int, error) {
	// The cache holds every node already (the controller watches them), so listing them
	// all and keeping those that concern the pool costs no request. A field index would
	// spare the loop on clusters of thousands of nodes.
	var nodes corev1.NodeList
	var reader client.Reader = r.Client
	// The pass of a pool being deleted is its last: once it removes the finalizer, no
	// pass of the pool will run again. A node the pass before gave the pool's labels may
	// still look untouched in the cache, which has not seen that patch yet; the last pass
	// must not take the cache's word for it. It lists the nodes from the API server: one
	// request per deletion.
	if !pool.DeletionTimestamp.IsZero() {
		reader = r.APIReader
	}
	if err := reader.List(ctx, &nodes); err != nil {
		return 0, fmt.Errorf("listing nodes: %w", err)
	}
	// The cache lists in no particular order. Sorted, the nodes are patched, logged and
	// reported in the same order on every pass, and the error of a pass that fails on the
	// same nodes names the same first failure.
	slices.SortFunc(nodes.Items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	if err := r.rememberListedKeys(ctx, pool, nodes.Items); err != nil {
		return 0, err
	}
	found.sawNodes, found.changes = true, map[nodeChange][]*corev1.Node{}
	var concerned []*corev1.Node
	for i := range nodes.Items {
		node := &nodes.Items[i]
		if !concernsPool(node, pool.Name) {
			continue
		}
		concerned = append(concerned, node)
		if isPoolMember(node, pool.Name) {
			if held := conflictsOn(node, pool); len(held) > 0 {
				found.conflicts = append(found.conflicts, fmt.Sprintf("node %s: %s", node.Name, strings.Join(held, ", ")))
			} else {
				found.members = append(found.members, node)
			}
		}
	}
	// Results come back in the nodes' order, however the patches interleaved.
	results := r.syncNodes(ctx, pool, concerned)
	var errs []error
	changed := 0
	for i, node := range concerned {
		switch result := results[i]; {
		case result.err != nil:
			log.FromContext(ctx).Error(result.err, "Failed to bring node in line with the pool", "node", node.Name)
			errs = append(errs, fmt.Errorf("node %s: %w", node.Name, result.err))
		case result.change != nodeUnchanged:
			changed++
			found.changes[result.change] = append(found.changes[result.change], node)
		}
		// A record the pass could not read was dropped (withPool), unless the node's patch
		// failed.
		if _, _, err := readPoolRecord(node, pool.Name); err != nil && results[i].err == nil {
			found.dropped = append(found.dropped, fmt.Sprintf("node %s: %v", node.Name, err))
		}
	}
	// The pass's error counts the failures and shows only the first: the errors of a few
	// hundred nodes, joined, would make a message longer than a condition may hold (lesson
	// 07). Each node's error is in the log, above, and errors.Is and errors.As see them all.
	return changed, batcherr.Join(errs, len(concerned))
}

// maxParallelNodePatches bounds the node patches a pass has under way at once. One
// after another, a spec change on 500 members takes 500 round trips to the API server;
// a few dozen at once take a few dozen times less, and the manager's client-side rate
// limit (--kube-api-qps, --kube-api-burst, sized for a pool change in cmd/main.go) and
// the API server's priority and fairness still pace them. More at once gain nothing
// once the API server is busy: on two cores, 64 or 128 were no faster than 32. Unbounded,
// a pool of 5000 nodes would start 5000 goroutines and connections at once.
const maxParallelNodePatches = 32

// nodeResult is what syncNode did to one node.
type nodeResult struct {
	change nodeChange
	err    error
}

// syncNodes runs syncNode on each of nodes, maxParallelNodePatches at a time at most,
// and returns the results in the order of nodes. Each node is patched at most once (with
// its own retries on conflict): the nodes are distinct, and so are their patches.
func (r *NodePoolReconciler) syncNodes(ctx context.Context, pool *nodesv1.NodePool, nodes []*corev1.Node) []nodeResult {
	results := make([]nodeResult, len(nodes))
	slots := make(chan struct{}, maxParallelNodePatches)
	var wg sync.WaitGroup
	for i, node := range nodes {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			results[i].change, results[i].err = r.syncNode(ctx, pool, node)
		})
	}
	wg.Wait()
	return results
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
		want, c := withPool(node, pool)
		if c == nodeUnchanged {
			return nil
		}
		err := r.Patch(ctx, want, client.MergeFromWithOptions(node, client.MergeFromWithOptimisticLock{}))
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
