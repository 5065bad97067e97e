package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The pure part of a pass: what withPool makes of one node, and the functions it is
// made of, called directly rather than through the API server:
// `go test -run 'TestSetPool|TestWithPool|TestConcernsPool' ./internal/controller` runs
// them alone, once TestMain has started the API server the package's other tests use.

func TestSetPoolTaintsKeepsEveryOtherTaintInItsPlace(t *testing.T) {
	g := NewWithT(t)
	admin := corev1.Taint{Key: "pool.example/gpu", Value: "draining", Effect: corev1.TaintEffectNoExecute}
	adminOfPoolsKey := noSchedule("pool.example/zone", "admin")
	old := noSchedule("pool.example/old", "")
	gpu := noSchedule("pool.example/gpu", "1")
	team := noSchedule("team", "blue")
	node := nodeWith("n1", nil, old, admin, gpu, adminOfPoolsKey, team)

	given := setPoolTaints(node, []corev1.Taint{old, gpu}, []corev1.Taint{
		noSchedule("pool.example/gpu", "2"),
		noSchedule("pool.example/zone", "b"),
		{Key: "pool.example/new", Effect: corev1.TaintEffectPreferNoSchedule},
	})
	g.Expect(node.Spec.Taints).To(Equal([]corev1.Taint{
		admin,
		noSchedule("pool.example/gpu", "2"),
		adminOfPoolsKey,
		team,
		{Key: "pool.example/new", Effect: corev1.TaintEffectPreferNoSchedule},
	}), "a taint is known by its key and its effect: the held pool.example/old:NoSchedule goes, "+
		"the held pool.example/gpu:NoSchedule takes its new value in its place, the admin's pool.example/gpu:NoExecute, "+
		"pool.example/zone:NoSchedule (someone else's value for a taint the pool lists) and team stay as they are, "+
		"and the missing taint comes last")
	g.Expect(given).To(ConsistOf(noSchedule("pool.example/gpu", "2"), corev1.Taint{Key: "pool.example/new", Effect: corev1.TaintEffectPreferNoSchedule}),
		"setPoolTaints returns the taints it set, and only those")

	given = setPoolTaints(node, []corev1.Taint{noSchedule("pool.example/gpu", "2"), {Key: "pool.example/new", Effect: corev1.TaintEffectPreferNoSchedule}}, nil)
	g.Expect(node.Spec.Taints).To(Equal([]corev1.Taint{admin, adminOfPoolsKey, team}), "a pool that lists nothing takes back all it holds")
	g.Expect(given).To(BeEmpty())
}

// From lesson 14 on, withPool writes only taints: the labels are applied
// (applyPoolLabels), and the record lists only the taints.
func TestWithPoolGivesAMemberThePoolsTaintsAndLeavesTheLabels(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("gpu", map[string]string{"pool.example/gpu": "a100"},
		corev1.Taint{Key: "pool.example/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})
	// An admin's taint has the key of the pool's, and another effect: another taint.
	node := nodeWith("n1", map[string]string{poolMemberLabel("gpu"): "", "team": "blue"},
		corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoExecute},
		corev1.Taint{Key: "pool.example/gpu", Value: "draining", Effect: corev1.TaintEffectNoExecute})

	got, change := withPool(node, pool)
	g.Expect(change).To(Equal(nodeJoined), "a member the pool had not touched joins it")
	g.Expect(got.Labels).To(Equal(node.Labels), "the labels are applied, not patched")
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{
		{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoExecute},
		{Key: "pool.example/gpu", Value: "draining", Effect: corev1.TaintEffectNoExecute},
		{Key: "pool.example/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}), "the pool's taints are added after the others, which keep their place and value")
	g.Expect(got.Annotations).To(HaveKeyWithValue(poolRecordAnnotation("gpu"),
		`{"taints":[{"key":"pool.example/gpu","value":"true","effect":"NoSchedule"}]}`),
		"the record lists only the taints the pool gave")

	again, change := withPool(got, pool)
	g.Expect(change).To(Equal(nodeUnchanged), "a node that carries what the pool gives needs nothing")
	g.Expect(again).To(Equal(got))
}

// A record of lesson 09 lists labels too; withPool drops them from it, and a pool
// without taints keeps no record at all: its labels are known by managedFields.
func TestWithPoolDropsTheLabelsOfARecordOfLesson09(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("web", map[string]string{"pool.example/web": "1"})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "pool.example/web": "1"})
	node.Annotations = map[string]string{poolRecordAnnotation("web"): `{"labels":{"pool.example/web":"1"}}`}

	got, change := withPool(node, pool)
	g.Expect(change).NotTo(Equal(nodeUnchanged))
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation("web")), "a pool without taints keeps no record")
	g.Expect(got.Labels).To(Equal(node.Labels), "the labels stay, whatever the record said")
}

func TestWithPoolTakesTheTaintsBackFromANodeThatLeft(t *testing.T) {
	g := NewWithT(t)
	admin := noSchedule("dedicated", "admin")
	pool := newNodePool("web", nil, corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule}, noSchedule("dedicated", "db"))
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): ""}, admin)
	node, _ = withPool(node, pool)
	g.Expect(node.Spec.Taints).To(Equal([]corev1.Taint{admin, {Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule}}),
		"an admin's value of the pool's key and effect is not the pool's to overwrite")
	delete(node.Labels, poolMemberLabel("web"))

	got, change := withPool(node, pool)
	g.Expect(change).To(Equal(nodeLeft))
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{admin}), "the admin's taint stays")
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation("web")), "a node outside the pool carries no record")
}

// A record is an annotation, which the node's kubelet may write: one that is not JSON
// must not stop the pool for ever. The pool treats it as empty.
func TestWithPoolDropsARecordItCannotRead(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("web", nil, corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): ""})
	node.Annotations = map[string]string{poolRecordAnnotation("web"): "edited by hand"}

	got, change := withPool(node, pool)
	g.Expect(change).To(Equal(nodeJoined), "without a record, the pool had given the node nothing")
	g.Expect(got.Annotations[poolRecordAnnotation("web")]).To(HavePrefix("{"), "the pool's own record replaces it")
}

func TestConcernsPoolMembersAndTheNodesThatLeft(t *testing.T) {
	g := NewWithT(t)
	member := nodeWith("n1", map[string]string{poolMemberLabel("web"): ""})
	tainted := nodeWith("n2", nil)
	tainted.Annotations = map[string]string{poolRecordAnnotation("web"): `{"taints":[]}`}
	labelled := nodeWith("n3", map[string]string{"zone": "a"})
	labelled.ManagedFields = []metav1.ManagedFieldsEntry{{
		Manager: poolFieldManager("web"), Operation: metav1.ManagedFieldsOperationApply,
		FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{"f:zone":{}}}}`),
	}}
	other := nodeWith("n4", map[string]string{poolMemberLabel("db"): ""})

	g.Expect(concernsPool(member, "web")).To(BeTrue(), "a member gets the pool's labels and taints")
	g.Expect(concernsPool(tainted, "web")).To(BeTrue(), "a node with the pool's record of taints has left, and must lose them")
	g.Expect(concernsPool(labelled, "web")).To(BeTrue(), "a node on which the pool's field manager owns labels has left, and must lose them")
	g.Expect(concernsPool(other, "web")).To(BeFalse(), "a node with neither is none of the pool's business")
}
