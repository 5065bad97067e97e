package controller

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/api/nodes/v1"
)

// A pass runs for a change of a node, not only of the pool: these tests change a node
// and nothing else, so only SetupWithManager's watch of the nodes brings the pass.

func TestANodeThatLeavesThePoolLosesExactlyWhatThePoolGave(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("leave")
	ownTaint := noSchedule("dedicated", "db")
	member := createTestNode(t, g, name+"-member", map[string]string{poolMemberLabel(name): "", "team": "blue"}, ownTaint)
	createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))
	g.Eventually(func(g Gomega) {
		g.Expect(latestNode(g, member).Spec.Taints).To(ContainElement(sampleTaint))
	}).Should(Succeed())

	labelNode(g, member, poolMemberLabel(name), nil)

	g.Eventually(func(g Gomega) {
		got := latestNode(g, member)
		g.Expect(got.Labels).To(Equal(map[string]string{"team": "blue"}),
			"a node that left the pool still carries the pool's record: a pass of the pool should take "+
				"the pool's labels back from it and leave its own")
		g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{ownTaint}),
			"the node should lose the pool's taint and keep its own")
		g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation(name)),
			"a node outside the pool should carry no record of it")
	}).Should(Succeed())
}

// informers records the kind of every informer the test manager's cache starts: each
// one lists and watches every object of its kind in the cluster and keeps them all in
// memory.
var informers informedKinds

type informedKinds struct {
	mu    sync.Mutex
	kinds []string
}

// record is a cache.Options.NewInformer: it notes the kind, then makes the informer the
// cache would have made.
func (k *informedKinds) record(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration,
	indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	k.mu.Lock()
	k.kinds = append(k.kinds, fmt.Sprintf("%T", obj))
	k.mu.Unlock()
	return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
}

func (k *informedKinds) list() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.kinds)
}

// The manager caches what the controller watches and reads, and no pod: a cluster's pods
// outnumber its nodes many times, and a pool never reads one. A Get or List of pods
// through the manager's client, or a watch of them, would start a pod informer.
func TestTheManagerCachesNoPods(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("cache")
	createMember(t, g, name)
	pool := createPool(t, g, newNodePool(name, sampleLabels))
	cache := env.Manager().GetClient()
	g.Eventually(func(g Gomega) {
		g.Expect(cache.Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{})).To(Succeed())
	}).Should(Succeed())

	// A pass of its own, through the manager's client, reads what every pass reads, now
	// rather than whenever the running controller gets to it. Its writes race with the
	// running controller's, so its result says nothing here.
	r := newReconciler(cache)
	_, _ = r.Reconcile(ctx, requestFor(pool))

	g.Expect(informers.list()).To(ContainElements("*v1.NodePool", "*v1.Node", "*v1.RuntimeClass"),
		"the manager caches what the controller watches: NodePools, their RuntimeClasses (Owns) and nodes (Watches)")
	g.Expect(informers.list()).NotTo(ContainElement(fmt.Sprintf("%T", &corev1.Pod{})),
		"the manager started a pod informer: read pods through r.APIReader, if at all")
}
