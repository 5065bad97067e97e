package controller

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

// Nodes and NodePools are cluster-scoped: they outlive a test's namespace, and every
// test of the package sees them. So each test names its own, and deletes them when it
// ends.
var clusterNames atomic.Int64

// uniqueName returns prefix with a number no other test of this run uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, clusterNames.Add(1))
}

// newNodePool returns a NodePool named name that gives its members labels and taints.
func newNodePool(name string, labels map[string]string, taints ...corev1.Taint) *nodesv1.NodePool {
	return &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       nodesv1.NodePoolSpec{Labels: labels, Taints: taints, Handler: "runc"},
	}
}

// nodeWith returns a node named name with labels and taints, for the tests that call
// withPool and its helpers directly: it never reaches the API server (createTestNode).
func nodeWith(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: taints},
	}
}

// unmanagedPool hides pool from the running manager, for tests that call Reconcile
// themselves. The manager still maps its nodes' events to it, and finds no such pool in
// its cache.
func unmanagedPool(pool *nodesv1.NodePool) *nodesv1.NodePool {
	pool.Labels = map[string]string{testenv.UnmanagedLabel: "true"}
	return pool
}

// createPool creates pool and deletes it when the test ends.
func createPool(t *testing.T, g Gomega, pool *nodesv1.NodePool) *nodesv1.NodePool {
	t.Helper()
	g.ExpectWithOffset(1, env.Client().Create(env.Context(), pool)).To(Succeed(), "creating NodePool %s", pool.Name)
	t.Cleanup(func() { deletePoolAfterTest(t, pool) })
	return pool
}

func deletePoolAfterTest(t *testing.T, pool *nodesv1.NodePool) {
	ctx := context.Background()
	if err := env.Client().Delete(ctx, pool); client.IgnoreNotFound(err) != nil {
		t.Errorf("deleting NodePool %s: %v", pool.Name, err)
	}
	// The running manager removes its finalizer from the pools it sees. A pool hidden
	// from it keeps every finalizer a test's own passes or the test itself gave it.
	if pool.Labels[testenv.UnmanagedLabel] != "" {
		patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
		if err := env.Client().Patch(ctx, pool, patch); client.IgnoreNotFound(err) != nil {
			t.Errorf("removing the finalizers of NodePool %s: %v", pool.Name, err)
		}
	}
}

// createTestNode creates a node with labels and taints, as a kubelet registering would, and
// deletes it when the test ends. envtest runs no kubelet: the node's status stays empty.
func createTestNode(t *testing.T, g Gomega, name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	t.Helper()
	node := nodeWith(name, labels, taints...)
	t.Cleanup(func() { deleteNodesAfterTest(t, node) })
	g.ExpectWithOffset(1, registerNode(node)).To(Succeed(), "registering node %s", name)
	return node
}

// registerNode creates node as a kubelet registering would.
func registerNode(node *corev1.Node) error {
	taints := node.Spec.Taints
	if err := env.Client().Create(env.Context(), node); err != nil {
		return err
	}
	// The API server taints every new node node.kubernetes.io/not-ready (the
	// TaintNodesByCondition admission plugin); the node lifecycle controller, which envtest
	// lacks, takes the taint off once the kubelet reports Ready. Play its part.
	node.Spec.Taints = taints
	return env.Client().Update(env.Context(), node)
}

// deleteNodesAfterTest deletes nodes, all at once, and fails the test on an error other
// than NotFound.
func deleteNodesAfterTest(t *testing.T, nodes ...*corev1.Node) {
	_, err := podcontrol.InParallel(len(nodes), func(i int) error {
		err := env.Client().Delete(context.Background(), nodes[i])
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting node %s: %w", nodes[i].Name, err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// newReconciler returns a reconciler for tests that run passes themselves: it reads and
// writes through c, and reads the API server directly where a pass does (APIReader).
func newReconciler(c client.Client) *NodePoolReconciler {
	return &NodePoolReconciler{
		Client:    c,
		Scheme:    env.Scheme(),
		APIReader: env.Client(),
		// It drops every event; a test that reads them sets a recorder of its own.
		Recorder: &events.FakeRecorder{},
	}
}

// createMember creates a member of the pool named pool, named pool-member, as
// createTestNode does.
func createMember(t *testing.T, g Gomega, pool string) *corev1.Node {
	t.Helper()
	return createTestNode(t, g, pool+"-member", map[string]string{poolMemberLabel(pool): ""})
}

// createMembers creates n members of the pool named pool, as createTestNode does, named
// pool-0, pool-1, ... with the numbers padded to one width: the names sort as the
// numbers do, and a pass goes through the nodes in that order. It registers them all at
// once, as the kubelets of a new cluster do: hundreds one after another take seconds.
func createMembers(t *testing.T, g Gomega, pool string, n int) []*corev1.Node {
	t.Helper()
	width := len(strconv.Itoa(n - 1))
	members := make([]*corev1.Node, n)
	for i := range members {
		members[i] = nodeWith(fmt.Sprintf("%s-%0*d", pool, width, i), map[string]string{poolMemberLabel(pool): ""})
	}
	t.Cleanup(func() { deleteNodesAfterTest(t, members...) })
	_, err := podcontrol.InParallel(n, func(i int) error { return registerNode(members[i]) })
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred(), "registering %d members of pool %s", n, pool)
	return members
}

// createUnmanagedPoolWithMember creates a member of the pool named name (createMember),
// then the pool, which gives labels and taints, hidden from the running manager
// (unmanagedPool): for a test that runs the pool's passes itself.
func createUnmanagedPoolWithMember(t *testing.T, g Gomega, name string, labels map[string]string, taints ...corev1.Taint) (*nodesv1.NodePool, *corev1.Node) {
	t.Helper()
	member := createMember(t, g, name)
	return createPool(t, g, unmanagedPool(newNodePool(name, labels, taints...))), member
}

// requestFor is the request a pass of obj gets.
func requestFor(obj client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}

// runPass runs a pass of r for pool, as the manager would, and expects it to succeed;
// description, if any, says what a failure means.
func runPass(g Gomega, r *NodePoolReconciler, pool *nodesv1.NodePool, description ...any) {
	_, err := r.Reconcile(env.Context(), requestFor(pool))
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred(), description...)
}

// latestNode reads node straight from the API server.
func latestNode(g Gomega, node *corev1.Node) *corev1.Node {
	var got corev1.Node
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(node), &got)).To(Succeed(),
		"reading node %s from the API server", node.Name)
	return &got
}

// latestPool reads pool straight from the API server.
func latestPool(g Gomega, pool *nodesv1.NodePool) *nodesv1.NodePool {
	var got nodesv1.NodePool
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(pool), &got)).To(Succeed(),
		"reading NodePool %s from the API server", pool.Name)
	return &got
}

// setPoolSpec changes pool's spec with a merge patch, as `kubectl patch` does.
func setPoolSpec(g Gomega, pool *nodesv1.NodePool, change func(*nodesv1.NodePoolSpec)) {
	patch := client.MergeFrom(pool.DeepCopy())
	change(&pool.Spec)
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), pool, patch)).To(Succeed(), "changing the spec of NodePool %s", pool.Name)
}

// labelNode sets a label of node (value nil removes it) with a merge patch, as
// `kubectl label node` does.
func labelNode(g Gomega, node *corev1.Node, key string, value *string) {
	var patch string
	if value == nil {
		patch = fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, key)
	} else {
		patch = fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, *value)
	}
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), node,
		client.RawPatch("application/merge-patch+json", []byte(patch)))).To(Succeed(), "labelling node %s %s", node.Name, key)
}

// noSchedule returns a NoSchedule taint.
func noSchedule(key, value string) corev1.Taint {
	return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
}

// writeLog is a client that remembers, in order, the objects it wrote to: "Kind/name"
// for a create, update, patch or delete, "Kind/name/status" for a write of the status.
type writeLog struct {
	client.Client
	mu      sync.Mutex
	writes  []string
	applies []string
}

func (w *writeLog) record(obj client.Object, suffix string) {
	kind := strings.TrimPrefix(fmt.Sprintf("%T", obj), "*v1.")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, kind+"/"+obj.GetName()+suffix)
}

// take returns the writes since the last call.
func (w *writeLog) take() []string { return w.empty(&w.writes) }

// empty empties list, and returns what it held.
func (w *writeLog) empty(list *[]string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	held := *list
	*list = nil
	return held
}

func (w *writeLog) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	w.record(obj, "")
	return w.Client.Create(ctx, obj, opts...)
}

func (w *writeLog) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	w.record(obj, "")
	return w.Client.Update(ctx, obj, opts...)
}

func (w *writeLog) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	w.record(obj, "")
	return w.Client.Patch(ctx, obj, patch, opts...)
}

// Apply records an apply apart from the other writes (takeApplies): "Kind/name".
func (w *writeLog) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	w.mu.Lock()
	w.applies = append(w.applies, appliedName(obj))
	w.mu.Unlock()
	return w.Client.Apply(ctx, obj, opts...)
}

// appliedName returns "Kind/name" of what obj applies.
func appliedName(obj runtime.ApplyConfiguration) string {
	name := ""
	if named, ok := obj.(interface{ GetName() *string }); ok && named.GetName() != nil {
		name = *named.GetName()
	}
	return strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", obj), "*v1."), "ApplyConfiguration") + "/" + name
}

// takeApplies returns the applies since the last call.
func (w *writeLog) takeApplies() []string { return w.empty(&w.applies) }

func (w *writeLog) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	w.record(obj, "")
	return w.Client.Delete(ctx, obj, opts...)
}

func (w *writeLog) Status() client.SubResourceWriter {
	return &statusWriteLog{SubResourceWriter: w.Client.Status(), log: w}
}

type statusWriteLog struct {
	client.SubResourceWriter
	log *writeLog
}

func (s *statusWriteLog) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	s.log.record(obj, "/status")
	return s.SubResourceWriter.Update(ctx, obj, opts...)
}

func (s *statusWriteLog) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.log.record(obj, "/status")
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

// Apply records an apply of the status as the other writes of the status are recorded:
// "Kind/name/status".
func (s *statusWriteLog) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	s.log.mu.Lock()
	s.log.writes = append(s.log.writes, appliedName(obj)+"/status")
	s.log.mu.Unlock()
	return s.SubResourceWriter.Apply(ctx, obj, opts...)
}

// clientKey is the key of the cluster-scoped object name.
func clientKey(name string) client.ObjectKey { return client.ObjectKey{Name: name} }
