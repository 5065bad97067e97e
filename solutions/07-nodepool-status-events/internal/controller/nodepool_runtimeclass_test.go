package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/07-nodepool-status-events/api/nodes/v1"
)

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

func TestPoolSchedulingIsEmptyWhenThePoolGivesNothing(t *testing.T) {
	g := NewWithT(t)
	g.Expect(poolScheduling(newNodePool("plain", nil))).To(BeNil(),
		"a pool without labels or taints puts no constraint on its pods")
	g.Expect(poolScheduling(newNodePool("labels", map[string]string{"a": "1"}))).To(Equal(&nodev1.Scheduling{
		NodeSelector: map[string]string{"a": "1"},
	}))
}

// runtimeClassOf reads the RuntimeClass of pool straight from the API server.
func runtimeClassOf(g Gomega, pool *nodesv1.NodePool) nodev1.RuntimeClass {
	var rc nodev1.RuntimeClass
	g.ExpectWithOffset(1, env.Client.Get(env.Context(), client.ObjectKey{Name: nodesv1.RuntimeClassPrefix + pool.Name}, &rc)).
		To(Succeed(), "the pool should have a RuntimeClass named %s%s", nodesv1.RuntimeClassPrefix, pool.Name)
	return rc
}
