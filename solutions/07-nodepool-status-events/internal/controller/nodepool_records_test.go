package controller

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/07-nodepool-status-events/api/nodes/v1"
)

// A pool's record is an annotation on the node, and the node's kubelet may write its own
// node's annotations (the NodeRestriction admission plugin allows it), while it may not
// touch its taints nor the node-restriction.kubernetes.io/ labels. A record is a claim,
// not a proof.

// A record of a pool that does not exist, or one that lists a key its pool never listed,
// claims nothing: the pool that gave the key keeps it.
func TestAForgedRecordOfAnotherPoolTakesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("forged-other")
	member := createTestNode(t, g, name+"-member", map[string]string{poolMemberLabel(name): ""})
	pool := createPool(t, g, unmanagedPool(newNodePool(name, sampleLabels, sampleTaint)))
	other := createPool(t, g, unmanagedPool(newNodePool(name+"-other", map[string]string{"other.test/own": "1"})))
	r := newReconciler(env.Client)

	_, err := r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(latestNode(g, member).Labels).To(HaveKeyWithValue("node-pool.workshop.dev/master", "8"))

	forged := fmt.Sprintf(`{"labels":["node-pool.workshop.dev/master"],"taints":[%q]}`, taintID(sampleTaint))
	for _, claimant := range []string{"ghost-" + name, other.Name} {
		annotateNode(g, member, poolRecordAnnotation(claimant), forged)
		_, err = r.Reconcile(ctx, requestFor(pool))
		g.Expect(err).NotTo(HaveOccurred())
		got := latestNode(g, member)
		g.Expect(got.Labels).To(HaveKeyWithValue("node-pool.workshop.dev/master", "8"),
			"a record of %s, which never listed the key, should not make the pool drop it", claimant)
		g.Expect(got.Spec.Taints).To(ContainElement(sampleTaint),
			"a record of %s, which never listed the taint, should not make the pool drop it", claimant)
	}
}

// A record that lists a key the pool never listed takes nothing from the node: not the
// admin's taint, not a label the kubelet may not change itself. What an earlier spec of
// the pool listed still goes.
func TestAForgedRecordTakesNothingThePoolNeverListed(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("forged-own")
	adminTaint := corev1.Taint{Key: "admin.test/quarantine", Value: "yes", Effect: corev1.TaintEffectNoExecute}
	restricted := "node-restriction.kubernetes.io/secure"
	member := createTestNode(t, g, name+"-member", map[string]string{poolMemberLabel(name): "", restricted: "yes"}, adminTaint)
	pool := createPool(t, g, unmanagedPool(newNodePool(name, sampleLabels, sampleTaint)))
	r := newReconciler(env.Client)

	_, err := r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).NotTo(HaveOccurred())
	forged := fmt.Sprintf(`{"labels":["node-pool.workshop.dev/master","node-pool.workshop.dev/test",%q],"taints":[%q,%q]}`,
		restricted, taintID(sampleTaint), taintID(adminTaint))
	annotateNode(g, member, poolRecordAnnotation(name), forged)
	_, err = r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).NotTo(HaveOccurred())
	got := latestNode(g, member)
	g.Expect(got.Spec.Taints).To(ContainElement(adminTaint), "the pool never listed the admin's taint: it must stay")
	g.Expect(got.Labels).To(HaveKeyWithValue(restricted, "yes"), "the pool never listed the label: it must stay")

	// A key the pool listed before still goes when the spec drops it.
	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) {
		spec.Labels = map[string]string{"node-pool.workshop.dev/master": "10"}
	})
	_, err = r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).NotTo(HaveOccurred())
	got = latestNode(g, member)
	g.Expect(got.Labels).NotTo(HaveKey("node-pool.workshop.dev/test"), "the pool listed test before: it goes")
	g.Expect(got.Labels).To(HaveKeyWithValue(restricted, "yes"))
	g.Expect(got.Spec.Taints).To(ContainElement(adminTaint))
}

// Two pools that list the same key for one node: the first keeps it (lesson 05), and
// the node does not carry what the second gives. The second must not count it, nor add
// its resources: its RuntimeClass's pods would never land there. It says so.
func TestAPoolThatLosesAKeyToAnotherPoolReportsTheConflict(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("held")
	first, second := name+"-first", name+"-second"
	shared := createTestNode(t, g, name+"-shared", map[string]string{poolMemberLabel(first): "", poolMemberLabel(second): ""})
	own := createTestNode(t, g, name+"-own", map[string]string{poolMemberLabel(second): ""})
	setAllocatable(g, shared, "4", "8Gi")
	setAllocatable(g, own, "2", "4Gi")
	createPool(t, g, unmanagedPool(newNodePool(first, map[string]string{"pool.test/tier": "1"})))
	pool := createPool(t, g, unmanagedPool(newNodePool(second, map[string]string{"pool.test/tier": "2", "pool.test/own": "yes"})))
	r := newReconciler(env.Client)

	_, err := r.Reconcile(ctx, requestFor(&nodesv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: first}}))
	g.Expect(err).NotTo(HaveOccurred())
	_, err = r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).NotTo(HaveOccurred())

	g.Expect(latestNode(g, shared).Labels).To(HaveKeyWithValue("pool.test/tier", "1"), "the first pool keeps its key")
	got := latestPool(g, pool)
	g.Expect(got.Status.NodeCount).To(BeEquivalentTo(1), "a member that does not carry the pool's labels does not count")
	g.Expect(got.Status.Allocatable).To(haveQuantities("2", "4Gi"), "nor do its resources")
	g.Expect(got).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonNodesInConflict))
	g.Expect(poolReadyCondition(got).Message).To(Equal(fmt.Sprintf(
		"1 of 2 members carry another pool's value for a key of this pool; first: node %s: label pool.test/tier (pool %s)", shared.Name, first)))
}

// annotateNode sets an annotation of node with a merge patch, as its kubelet could.
func annotateNode(g Gomega, node *corev1.Node, key, value string) {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, key, value)
	g.ExpectWithOffset(1, env.Client.Patch(env.Context(), node,
		client.RawPatch("application/merge-patch+json", []byte(patch)))).To(Succeed())
}
