package controller

import (
	"encoding/json"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A pool's record is an annotation on the node, and the node's kubelet may write its own
// node's annotations (the NodeRestriction admission plugin allows it), while it may not
// touch its taints nor the node-restriction.kubernetes.io/ labels. A record is a claim,
// not a proof.

// A record of a pool that does not exist, or one that lists a key its pool never listed,
// claims nothing: the pool that gave the key keeps it.
func TestAForgedRecordOfAnotherPoolTakesNothing(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("forged-other")
	pool, member := createUnmanagedPoolWithMember(t, g, name, sampleLabels, sampleTaint)
	other := createPool(t, g, unmanagedPool(newNodePool(name+"-other", map[string]string{"other.test/own": "1"})))
	r := newReconciler(env.Client())

	runPass(g, r, pool)
	g.Expect(latestNode(g, member).Labels).To(HaveKeyWithValue("node-pool.workshop.dev/master", "8"))

	forged := recordOf(map[string]string{"node-pool.workshop.dev/master": "8"}, sampleTaint)
	for _, claimant := range []string{"ghost-" + name, other.Name} {
		annotateNode(g, member, poolRecordAnnotation(claimant), forged)
		runPass(g, r, pool)
		got := latestNode(g, member)
		g.Expect(got.Labels).To(HaveKeyWithValue("node-pool.workshop.dev/master", "8"),
			"a record of %s, which never listed the key, should not make the pool drop it", claimant)
		g.Expect(got.Spec.Taints).To(ContainElement(sampleTaint),
			"a record of %s, which never listed the taint, should not make the pool drop it", claimant)
	}
}

// recordOf returns the record of a pool that gave labels and taints, as a pool's
// annotation holds it.
func recordOf(labels map[string]string, taints ...corev1.Taint) string {
	value, _ := json.Marshal(poolRecord{Labels: labels, Taints: taints}) // strings always encode
	return string(value)
}

// annotateNode sets an annotation of node with a merge patch, as its kubelet could.
func annotateNode(g Gomega, node *corev1.Node, key, value string) {
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, key, value)
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), node,
		client.RawPatch("application/merge-patch+json", []byte(patch)))).To(Succeed(), "annotating node %s %s", node.Name, key)
}
