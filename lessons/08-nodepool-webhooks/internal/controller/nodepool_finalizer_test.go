package controller

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/08-nodepool-webhooks/api/nodes/v1"
)

func TestNodePoolGetsTheFinalizer(t *testing.T) {
	g := NewWithT(t)
	pool := createPool(t, g, newNodePool(uniqueName("finalizer"), sampleLabels))
	g.Eventually(func(g Gomega) {
		g.Expect(latestPool(g, pool).Finalizers).To(ConsistOf(nodesv1.Finalizer),
			"the controller should add its finalizer to every pool")
	}).Should(Succeed())
}

// A deletion pass takes back what the pool gave with the code that gives it: withPool of
// a pool being deleted, called directly:
// `go test -run TestAPoolBeingDeletedGivesNothing ./internal/controller` runs it alone.
func TestAPoolBeingDeletedGivesNothingToItsMembers(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("web", map[string]string{"pool.example/web": "1"},
		corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "team": "blue"})
	node, _ = withPool(node, pool)

	pool.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	got, change := withPool(node, pool)
	g.Expect(change).To(Equal(nodeLeft), "a pool being deleted gives nothing, members included: "+
		"its member should lose what the pool gave, as a node that left does")
	g.Expect(got.Labels).To(Equal(map[string]string{poolMemberLabel("web"): "", "team": "blue"}),
		"the pool's label goes; the membership label and the node's own stay")
	g.Expect(got.Spec.Taints).To(BeEmpty(), "the pool's taint goes")
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation("web")), "nothing left to record")
}

// cleanBeforeTheFinalizerGoes is what a deletion pass must do, in this order.
const cleanBeforeTheFinalizerGoes = "a pool being deleted gives nothing, members included, " +
	"and the finalizer goes only once the nodes are clean"

func TestDeletingANodePoolTakesBackWhatItGave(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("delete")
	ownTaint := noSchedule("dedicated", "db")
	members := []*corev1.Node{
		createTestNode(t, g, name+"-a", map[string]string{poolMemberLabel(name): "", "team": "blue"}, ownTaint),
		createTestNode(t, g, name+"-b", map[string]string{poolMemberLabel(name): ""}),
	}
	pool := createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))
	g.Eventually(func(g Gomega) {
		for _, member := range members {
			g.Expect(latestNode(g, member).Spec.Taints).To(ContainElement(sampleTaint))
		}
		g.Expect(latestPool(g, pool).Finalizers).To(ContainElement(nodesv1.Finalizer))
	}).Should(Succeed())

	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed())

	g.Eventually(func(g Gomega) {
		err := env.Client().Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(),
			"the pool should be gone once the controller has cleaned its nodes and removed the finalizer; got %v", err)
	}).Should(Succeed())
	// The finalizer let the pool go only once the nodes were clean: no waiting here.
	got := latestNode(g, members[0])
	g.Expect(got.Labels).To(Equal(map[string]string{poolMemberLabel(name): "", "team": "blue"}),
		"the pool's labels should be gone with the pool (%s), and the membership label, which is not the pool's, "+
			"should stay", cleanBeforeTheFinalizerGoes)
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{ownTaint}), "the pool's taint should be gone with the pool (%s)",
		cleanBeforeTheFinalizerGoes)
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation(name)), "the pool's record should be gone with the pool (%s)",
		cleanBeforeTheFinalizerGoes)
	got = latestNode(g, members[1])
	g.Expect(got.Labels).To(Equal(map[string]string{poolMemberLabel(name): ""}), "the pool's labels should be gone with the pool (%s)",
		cleanBeforeTheFinalizerGoes)
	g.Expect(got.Spec.Taints).To(BeEmpty(), "the pool's taint should be gone with the pool (%s)", cleanBeforeTheFinalizerGoes)

	// envtest runs no garbage collector: the RuntimeClass stays here, and its
	// OwnerReference is what makes it go with the pool on a cluster.
	rc := runtimeClassOf(g, pool)
	g.Expect(metav1.IsControlledBy(&rc, pool)).To(BeTrue(),
		"the RuntimeClass should be controlled by the pool, so that the garbage collector deletes it")
}

// The passes of a pool's life, driven by hand, and every write each one makes, in order.
func TestTheDeletionPassWritesNothingAfterRemovingTheFinalizer(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("lastwrite")
	pool, member := createUnmanagedPoolWithMember(t, g, name, sampleLabels, sampleTaint)
	writes := &writeLog{Client: env.Client()}
	r := newReconciler(writes)
	recorder := events.NewFakeRecorder(10)
	r.Recorder = recorder

	runPass(g, r, pool)
	g.Expect(latestPool(g, pool).Finalizers).To(ConsistOf(nodesv1.Finalizer), "the first pass should add the finalizer")
	firstPass := []string{"NodePool/" + name, "Node/" + member.Name, "RuntimeClass/" + nodesv1.RuntimeClassPrefix + name}
	// The keys the pass gives go into the status before any node gets them, as the
	// finalizer does; the rest of the status comes last.
	status := "NodePool/" + name + "/status"
	firstPass = []string{firstPass[0], status, firstPass[1], firstPass[2], status}
	g.Expect(takeEvents(recorder)).To(HaveExactElements(HavePrefix("Normal NodeJoined Node "+member.Name)),
		"the first pass should tell of the member that joined, in one event, and of nothing else: "+
			"an event tells what a pass changed (nodeChange), never that a pass ran")
	g.Expect(writes.take()).To(HaveExactElements(firstPass),
		"the first pass should store the finalizer (and the keys it gives, if any) before it gives any node anything, "+
			"and write the rest of the status, if any, last")

	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed(), "deleting the pool")
	g.Expect(latestPool(g, pool).DeletionTimestamp).NotTo(BeNil(), "the finalizer holds the deleted pool")

	runPass(g, r, pool, "the deletion pass should succeed")
	g.Expect(writes.take()).To(HaveExactElements("Node/"+member.Name, "NodePool/"+name),
		"the deletion pass should clean the node, then remove the finalizer, and write nothing after it, not even "+
			"the status: the finalizer goes only once the nodes are clean")
	g.Expect(takeEvents(recorder)).To(HaveExactElements(
		HavePrefix("Normal NodeLeft Node "+member.Name), HavePrefix("Normal CleanupDone")),
		"the deletion pass should tell of each node it cleaned, then of the cleanup")
	err := env.Client().Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "without its finalizer the pool is deleted; got %v", err)
	got := latestNode(g, member)
	g.Expect(got.Labels).To(Equal(map[string]string{poolMemberLabel(name): ""}), "the deletion pass should take back the pool's labels")
	g.Expect(got.Spec.Taints).To(BeEmpty(), "the deletion pass should take back the pool's taint")

	runPass(g, r, pool, "a pass for a pool that is gone finds NotFound and is done")
	g.Expect(writes.take()).To(BeEmpty(), "a pass for a pool that is gone should write nothing")
}

// A pool deleted right after a pass gave a node its labels: the deletion pass may read
// the nodes from a cache that does not show that patch yet. That copy of the node has no
// record, so nothing to take back; the finalizer goes, and the node keeps the pool's
// labels and taints forever. The last pass of a pool reads its nodes from the API server.
func TestTheDeletionPassSeesNodesTheCacheDoesNotShowYet(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("stale-delete")
	pool, member := createUnmanagedPoolWithMember(t, g, name, sampleLabels, sampleTaint)
	// The cache shows the nodes as they were before the first pass.
	var before corev1.NodeList
	g.Expect(env.Client().List(ctx, &before)).To(Succeed())
	cache := &nodeCacheBehind{Client: env.Client(), nodes: before}
	r := newReconciler(cache)

	runPass(g, r, pool)
	g.Expect(latestNode(g, member).Spec.Taints).To(ContainElement(sampleTaint), "the first pass gives the member the pool's taint")

	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed())
	runPass(g, r, pool)
	err := env.Client().Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the deletion pass should let the pool go; got %v", err)
	got := latestNode(g, member)
	g.Expect(got.Spec.Taints).To(BeEmpty(),
		"the pool is gone: its taint must be gone too, even though the cache did not show it on the node")
	g.Expect(got.Labels).To(Equal(map[string]string{poolMemberLabel(name): ""}))
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation(name)))
}

// A record is an annotation, which the node's kubelet may write: one that is not JSON
// must not keep a deleted pool, and with it the CRD's removal, waiting for ever.
func TestADeletedPoolGoesDespiteARecordItCannotRead(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("unreadable")
	pool, member := createUnmanagedPoolWithMember(t, g, name, sampleLabels, sampleTaint)
	r := newReconciler(env.Client())

	runPass(g, r, pool)
	annotateNode(g, member, poolRecordAnnotation(name), "written by the kubelet")

	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed())
	runPass(g, r, pool, "a record the pool cannot read should be dropped, not hold the pool")
	err := env.Client().Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the deletion pass should let the pool go; got %v", err)
	g.Expect(latestNode(g, member).Annotations).NotTo(HaveKey(poolRecordAnnotation(name)),
		"the unreadable record should be gone with the pool")
}

// nodeCacheBehind is a client whose cache lists nodes as they were: a copy taken before.
type nodeCacheBehind struct {
	client.Client
	nodes corev1.NodeList
}

func (c *nodeCacheBehind) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if nodes, ok := list.(*corev1.NodeList); ok {
		c.nodes.DeepCopyInto(nodes)
		return nil
	}
	return c.Client.List(ctx, list, opts...)
}

// The API server refuses a new finalizer on an object being deleted ("no new finalizers
// can be added if the object is being deleted"): a controller that adds its finalizer
// without looking at deletionTimestamp fails on every pass of such a pool.
func TestAPoolBeingDeletedNeverGetsTheFinalizer(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("held")
	createMember(t, g, name)
	pool := unmanagedPool(newNodePool(name, sampleLabels))
	pool.Finalizers = []string{"test.workshop.dev/hold"}
	createPool(t, g, pool)
	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed())
	r := newReconciler(env.Client())

	runPass(g, r, pool, "a pass of a pool being deleted must not try to add the finalizer")
	g.Expect(latestPool(g, pool).Finalizers).To(ConsistOf("test.workshop.dev/hold"))
}
