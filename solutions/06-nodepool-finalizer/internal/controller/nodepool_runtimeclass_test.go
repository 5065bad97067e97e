package controller

import (
	"context"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/06-nodepool-finalizer/api/nodes/v1"
)

// The RuntimeClass's scheduling, computed directly:
// `go test -run TestPoolScheduling ./internal/controller` runs it alone.
func TestPoolSchedulingSelectsAndToleratesThePoolsNodes(t *testing.T) {
	g := NewWithT(t)
	g.Expect(poolScheduling(newNodePool("plain", nil))).To(BeNil(),
		"a pool without labels or taints puts no constraint on its pods")
	g.Expect(poolScheduling(newNodePool("labels", map[string]string{"a": "1"}))).To(Equal(&nodev1.Scheduling{
		NodeSelector: map[string]string{"a": "1"},
	}), "the pool's labels select its nodes")
	taint := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoExecute}
	g.Expect(poolScheduling(newNodePool("taints", nil, taint))).To(Equal(&nodev1.Scheduling{
		Tolerations: []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoExecute}},
	}), "each of the pool's taints is tolerated, by key, value and effect; no selector without labels")
}

// The pass right after the one that created the RuntimeClass often reads a cache that
// does not show it yet. Its Create then fails with AlreadyExists: the cache is behind,
// nothing failed, and the watch event of the create brings the pass that sees it.
func TestAStaleCacheIsNoRuntimeClassError(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	pool := createPool(t, g, unmanagedPool(newNodePool(uniqueName("stale-rc"), sampleLabels)))
	cache := &runtimeClassCacheBehind{Client: env.Client()}
	cache.behind.Store(true)
	r := newReconciler(cache)

	for pass := range 2 {
		runPass(g, r, pool, "pass %d: a RuntimeClass the cache does not show yet is no error", pass+1)
	}
	rc := runtimeClassOf(g, pool)
	g.Expect(metav1.IsControlledBy(&rc, pool)).To(BeTrue())

	// A RuntimeClass of that name that is not the pool's is still an error, once the
	// cache shows it.
	other := createPool(t, g, unmanagedPool(newNodePool(uniqueName("stale-rc-other"), sampleLabels)))
	foreign := &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: nodesv1.RuntimeClassPrefix + other.Name}, Handler: "runc"}
	g.Expect(env.Client().Create(ctx, foreign)).To(Succeed())
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), foreign) })
	runPass(g, r, other, "the cache does not show it yet: wait for the watch")
	cache.behind.Store(false)
	_, err := r.Reconcile(ctx, requestFor(other))
	g.Expect(err).To(MatchError(ContainSubstring("not controlled by this NodePool")),
		"a RuntimeClass someone else made is never taken over")
}

// runtimeClassCacheBehind is a client whose cache, while behind is set, shows no
// RuntimeClass, as one that has not seen the watch event of a create yet.
type runtimeClassCacheBehind struct {
	client.Client
	behind atomic.Bool
}

func (c *runtimeClassCacheBehind) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*nodev1.RuntimeClass); ok && c.behind.Load() {
		return apierrors.NewNotFound(nodev1.Resource("runtimeclasses"), key.Name)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// runtimeClassOf reads the RuntimeClass of pool straight from the API server.
func runtimeClassOf(g Gomega, pool *nodesv1.NodePool) nodev1.RuntimeClass {
	var rc nodev1.RuntimeClass
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKey{Name: nodesv1.RuntimeClassPrefix + pool.Name}, &rc)).
		To(Succeed(), "the pool should have a RuntimeClass named %s%s", nodesv1.RuntimeClassPrefix, pool.Name)
	return rc
}

func TestNodePoolRuntimeClassFollowsThePool(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("runtime")
	pool := createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))

	var first nodev1.RuntimeClass
	g.Eventually(func(g Gomega) {
		first = runtimeClassOf(g, pool)
		g.Expect(first.Handler).To(Equal("runc"), "the RuntimeClass's handler")
		g.Expect(first.Scheduling).NotTo(BeNil(), "the RuntimeClass should have scheduling constraints")
		g.Expect(first.Scheduling.NodeSelector).To(Equal(sampleLabels), "its node selector should be the pool's labels")
		g.Expect(first.Scheduling.Tolerations).To(Equal([]corev1.Toleration{{
			Key: "node-pool.workshop.dev", Operator: corev1.TolerationOpEqual, Value: "master", Effect: corev1.TaintEffectNoSchedule,
		}}), "it should tolerate the pool's taint")
	}).Should(Succeed())
	ref := metav1.GetControllerOf(&first)
	g.Expect(ref).NotTo(BeNil(), "the RuntimeClass should have a controller OwnerReference")
	g.Expect(ref.Kind).To(Equal("NodePool"))
	g.Expect(ref.UID).To(Equal(pool.UID), "the OwnerReference's UID should be the pool's (envtest has no garbage collector; "+
		"on a cluster the UID is what makes the RuntimeClass go with the pool)")
	g.Expect(ref.BlockOwnerDeletion).To(HaveValue(BeTrue()))

	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) {
		spec.Labels = map[string]string{"node-pool.workshop.dev/master": "10"}
		spec.Taints = nil
	})
	g.Eventually(func(g Gomega) {
		rc := runtimeClassOf(g, pool)
		g.Expect(rc.Scheduling).NotTo(BeNil())
		g.Expect(rc.Scheduling.NodeSelector).To(Equal(map[string]string{"node-pool.workshop.dev/master": "10"}),
			"the node selector should follow the pool's labels")
		g.Expect(rc.Scheduling.Tolerations).To(BeEmpty(), "the tolerations should follow the pool's taints")
		g.Expect(rc.UID).To(Equal(first.UID), "a change of scheduling is a patch, not a new RuntimeClass")
	}).Should(Succeed())

	// The API server refuses to change a RuntimeClass's handler.
	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) { spec.Handler = "kata" })
	g.Eventually(func(g Gomega) {
		rc := runtimeClassOf(g, pool)
		g.Expect(rc.Handler).To(Equal("kata"), "the RuntimeClass should follow the pool's handler")
		g.Expect(metav1.IsControlledBy(&rc, pool)).To(BeTrue(), "the new RuntimeClass is the pool's too")
	}).Should(Succeed())
}
