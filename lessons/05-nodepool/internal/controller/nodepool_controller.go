package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/kube-workshop/operator-workshop/shared/batcherr"

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
// TODO(8): Let the manager's role patch nodes and manage RuntimeClasses.
// The manager's role must allow what a pass does, and no more: read, watch and
// patch nodes (never update them), and read, watch, create, patch and delete
// RuntimeClasses. See "Patching a node you do not own" in docs/lesson-05.md.

// Reconcile brings the nodes that concern the pool and the pool's RuntimeClass in line
// with its spec: the members get the pool's labels and taints, the nodes that left lose
// them, and the RuntimeClass is created or updated. It is called for every change of a
// NodePool's spec, of its RuntimeClass and of the nodes that concern it.
func (r *NodePoolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	// TODO(5): Write the pass: get the pool, patch the nodes that need it.
	// Read the pool the request names. A pool that is gone ends the pass with no
	// error; any other failure to read it goes back to the queue, wrapped. See
	// "The Reconcile skeleton" in docs/lesson-05.md.

	// TODO(5): Write the pass: bring the nodes and the RuntimeClass in line.
	// Bring the nodes and the RuntimeClass in line with the pool, the second even
	// when the first fails, and return both errors: the queue retries the pass.
	return ctrl.Result{}, nil
}

// reconcileNodes brings every node that concerns the pool in line with it, several nodes
// at a time (syncNodes), and goes on past a node that fails: the others still get what
// they need. It returns how many nodes it changed; the log names each.
func (r *NodePoolReconciler) reconcileNodes(ctx context.Context, pool *nodesv1.NodePool) (int, error) {
	// The cache holds every node already (the controller watches them), so listing them
	// all and keeping those that concern the pool costs no request. A field index would
	// spare the loop on clusters of thousands of nodes.
	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes); err != nil {
		return 0, fmt.Errorf("listing nodes: %w", err)
	}
	// The cache lists in no particular order. Sorted, the nodes are patched, logged and
	// reported in the same order on every pass, and the error of a pass that fails on the
	// same nodes names the same first failure.
	slices.SortFunc(nodes.Items, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	var concerned []*corev1.Node
	for i := range nodes.Items {
		node := &nodes.Items[i]
		if !concernsPool(node, pool.Name) {
			continue
		}
		concerned = append(concerned, node)
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
	// TODO(5): Write the pass: patch a node only when it changed.
	// Patch the node only when what the pool wants differs, sending only what
	// changes, and so that the API server refuses a write based on a stale copy;
	// after a refusal, compute again from a fresh read of the node. A node that is
	// gone needs nothing. Log "Patched node" with the node and the change. See
	// "Patching a node you do not own" in docs/lesson-05.md.
	return nodeUnchanged, nil
}

// SetupWithManager starts the controller. A pool is reconciled when its spec changes
// (GenerationChangedPredicate: metadata edits change nothing a pass does), when its
// RuntimeClass changes (Owns), and when a node that concerns it changes (Watches, with
// poolsOfNode telling which pools a node concerns, and a predicate that drops the
// updates no pass reads).
func (r *NodePoolReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&nodesv1.NodePool{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		// TODO(7): Watch the RuntimeClass and the nodes.
		// A pool's pass must start when its RuntimeClass changes and when a node that
		// concerns it changes, but not for the node updates no pass reads (the
		// kubelet's heartbeats). See "Watching nodes" in docs/lesson-05.md.
		Named("nodepool").
		Complete(r)
}
