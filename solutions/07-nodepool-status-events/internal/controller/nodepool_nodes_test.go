package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// The pure part of a pass: what withPool makes of one node, and the functions it is
// made of, called directly rather than through the API server:
// `go test -run 'TestSetPool|TestWithPool|TestConcernsPool' ./internal/controller` runs
// them alone, once TestMain has started the API server the package's other tests use.

func TestSetPoolLabelsChangesOnlyThePoolsKeys(t *testing.T) {
	g := NewWithT(t)
	node := nodeWith("n1", map[string]string{"team": "blue", "pool.example/old": "1", "pool.example/tier": "1", "zone": "a",
		"pool.example/admin": "x"})

	given := setPoolLabels(node, map[string]string{"pool.example/old": "1", "pool.example/tier": "1"},
		map[string]string{"pool.example/tier": "2", "pool.example/new": "yes", "zone": "b"})
	g.Expect(node.Labels).To(Equal(map[string]string{"team": "blue", "pool.example/tier": "2", "pool.example/new": "yes", "zone": "a",
		"pool.example/admin": "x"}),
		"a held key the pool no longer lists goes, a held key takes the pool's value, a free key gets it, "+
			"a key that carries someone else's value (zone=a) stays theirs, and so does an admin's label with "+
			"the prefix of the pool's keys (pool.example/admin), which the pool never gave: only the keys in held are the pool's to remove")
	g.Expect(given).To(Equal(map[string]string{"pool.example/tier": "2", "pool.example/new": "yes"}),
		"setPoolLabels returns the labels it set, and only those: zone is not the pool's")

	bare := nodeWith("n2", nil)
	g.Expect(setPoolLabels(bare, nil, map[string]string{"zone": "a"})).To(Equal(map[string]string{"zone": "a"}))
	g.Expect(bare.Labels).To(Equal(map[string]string{"zone": "a"}), "a node without labels gets the pool's")

	g.Expect(setPoolLabels(bare, map[string]string{"zone": "a"}, nil)).To(BeEmpty())
	g.Expect(bare.Labels).To(BeEmpty(), "a pool that lists nothing takes back all it holds")
}

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

func TestWithPoolGivesAMemberThePoolsLabelsAndTaints(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("gpu", map[string]string{"pool.example/gpu": "a100", "pool.example/tier": "1"},
		corev1.Taint{Key: "pool.example/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})
	// An admin's taint has the key of the pool's, and another effect: another taint.
	node := nodeWith("n1", map[string]string{poolMemberLabel("gpu"): "", "team": "blue"},
		corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoExecute},
		corev1.Taint{Key: "pool.example/gpu", Value: "draining", Effect: corev1.TaintEffectNoExecute})

	got, change := withPool(node, pool)
	g.Expect(change).To(Equal(nodeJoined), "a member the pool had not touched joins it")
	g.Expect(got.Labels).To(Equal(map[string]string{
		poolMemberLabel("gpu"): "", "team": "blue", "pool.example/gpu": "a100", "pool.example/tier": "1",
	}), "the pool's labels are added; the others stay")
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{
		{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoExecute},
		{Key: "pool.example/gpu", Value: "draining", Effect: corev1.TaintEffectNoExecute},
		{Key: "pool.example/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}), "the pool's taints are added after the others, which keep their place and value: a taint is known by its key "+
		"and its effect, and the admin's pool.example/gpu:NoExecute is not the pool's pool.example/gpu:NoSchedule")
	g.Expect(got.Annotations).To(HaveKeyWithValue(poolRecordAnnotation("gpu"),
		`{"labels":{"pool.example/gpu":"a100","pool.example/tier":"1"},"taints":[{"key":"pool.example/gpu","value":"true","effect":"NoSchedule"}]}`),
		"the record lists what the pool gave, with the values, sorted")
	g.Expect(node.Labels).To(HaveLen(2), "withPool changes a copy, never the node it was given")
	g.Expect(node.Spec.Taints).To(HaveLen(2), "withPool changes a copy, never the node it was given")

	again, change := withPool(got, pool)
	g.Expect(change).To(Equal(nodeUnchanged), "a node that carries what the pool gives needs nothing")
	g.Expect(again).To(Equal(got))
}

func TestWithPoolRemovesOnlyWhatThePoolGaveAndNoLongerGives(t *testing.T) {
	g := NewWithT(t)
	before := newNodePool("web", map[string]string{"pool.example/master": "8", "pool.example/test": "2"},
		corev1.Taint{Key: "pool.example/web", Value: "a", Effect: corev1.TaintEffectNoSchedule},
		corev1.Taint{Key: "pool.example/old", Effect: corev1.TaintEffectPreferNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "team": "blue"},
		corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoSchedule})
	node, _ = withPool(node, before)
	// Someone else sets a label and a taint the pool never listed.
	node.Labels["zone"] = "a"
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute})

	after := newNodePool("web", map[string]string{"pool.example/master": "10"},
		corev1.Taint{Key: "pool.example/web", Value: "b", Effect: corev1.TaintEffectNoSchedule})
	// The pass that gave before's labels remembered them in the pool's status.
	addListedKeys(after, sets.List(specKeys(before).labels), sets.List(specKeys(before).taints))
	got, change := withPool(node, after)
	g.Expect(change).To(Equal(nodeUpdated))
	g.Expect(got.Labels).To(Equal(map[string]string{
		poolMemberLabel("web"): "", "team": "blue", "zone": "a", "pool.example/master": "10",
	}), "pool.example/test goes; the labels the pool never set stay")
	g.Expect(got.Spec.Taints).To(ConsistOf(
		corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoSchedule},
		corev1.Taint{Key: "pool.example/web", Value: "b", Effect: corev1.TaintEffectNoSchedule},
		corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute},
	), "pool.example/old goes, pool.example/web takes its new value; the others stay")
	g.Expect(got.Annotations).To(HaveKeyWithValue(poolRecordAnnotation("web"),
		`{"labels":{"pool.example/master":"10"},"taints":[{"key":"pool.example/web","value":"b","effect":"NoSchedule"}]}`))
}

func TestWithPoolTakesEverythingBackFromANodeThatLeft(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("web", map[string]string{"pool.example/web": "1"},
		corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "team": "blue"},
		corev1.Taint{Key: "team", Effect: corev1.TaintEffectNoSchedule})
	node, _ = withPool(node, pool)
	delete(node.Labels, poolMemberLabel("web"))

	got, change := withPool(node, pool)
	g.Expect(change).To(Equal(nodeLeft))
	g.Expect(got.Labels).To(Equal(map[string]string{"team": "blue"}))
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{{Key: "team", Effect: corev1.TaintEffectNoSchedule}}))
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation("web")), "a node outside the pool carries no record")
}

// A label or taint someone set before the pool came stays theirs: the pool neither takes
// it over nor, when it goes, takes it away. Lesson 07 reports it as a conflict.
func TestWithPoolLeavesAKeyThatCarriesSomeoneElsesValue(t *testing.T) {
	g := NewWithT(t)
	admin := corev1.Taint{Key: "dedicated", Value: "admin", Effect: corev1.TaintEffectNoSchedule}
	pool := newNodePool("web", map[string]string{"team/tier": "pool", "zone": "b"},
		corev1.Taint{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "team/tier": "admin"}, admin)

	got, _ := withPool(node, pool)
	g.Expect(got.Labels).To(HaveKeyWithValue("team/tier", "admin"), "an admin's value is not the pool's to overwrite")
	g.Expect(got.Labels).To(HaveKeyWithValue("zone", "b"), "a key nobody set is the pool's to give")
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{admin}), "an admin's taint of the pool's key and effect stays as it is")

	delete(got.Labels, poolMemberLabel("web"))
	left, _ := withPool(got, pool)
	g.Expect(left.Labels).To(Equal(map[string]string{"team/tier": "admin"}),
		"when the node leaves, the pool takes back its zone=b and leaves the admin's team/tier=admin")
	g.Expect(left.Spec.Taints).To(Equal([]corev1.Taint{admin}), "and the admin's taint")
}

// A taint, or a label, is the pool's only while it has the value the pool gave it: an
// admin who changes dedicated=db:NoSchedule to dedicated=admin:NoSchedule has made it
// theirs, and it stays when the node leaves.
func TestWithPoolTakesBackOnlyWhatStillHasThePoolsValue(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("db", map[string]string{"team/tier": "db"}, noSchedule("dedicated", "db"))
	node := nodeWith("n1", map[string]string{poolMemberLabel("db"): ""})
	node, _ = withPool(node, pool)
	g.Expect(node.Spec.Taints).To(Equal([]corev1.Taint{noSchedule("dedicated", "db")}))

	// An admin changes both values, then the pool's spec changes.
	node.Labels["team/tier"] = "admin"
	node.Spec.Taints = []corev1.Taint{noSchedule("dedicated", "admin")}
	pool.Spec.Labels["team/tier"] = "db2"
	pool.Spec.Taints = []corev1.Taint{noSchedule("dedicated", "db2")}
	got, _ := withPool(node, pool)
	g.Expect(got.Labels).To(HaveKeyWithValue("team/tier", "admin"), "the admin's value is no longer the pool's to change")
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{noSchedule("dedicated", "admin")}),
		"the admin's value is no longer the pool's to change")

	delete(got.Labels, poolMemberLabel("db"))
	left, change := withPool(got, pool)
	g.Expect(change).To(Equal(nodeLeft))
	g.Expect(left.Labels).To(Equal(map[string]string{"team/tier": "admin"}), "the admin's label stays when the node leaves")
	g.Expect(left.Spec.Taints).To(Equal([]corev1.Taint{noSchedule("dedicated", "admin")}),
		"the admin's taint stays when the node leaves")
}

func TestWithPoolLeavesAKeyToThePoolThatSetItFirst(t *testing.T) {
	g := NewWithT(t)
	first := newNodePool("first", map[string]string{"shared": "1"},
		corev1.Taint{Key: "shared", Effect: corev1.TaintEffectNoSchedule})
	second := newNodePool("second", map[string]string{"shared": "2", "own": "yes"},
		corev1.Taint{Key: "shared", Value: "2", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("first"): "", poolMemberLabel("second"): ""})
	node, _ = withPool(node, first)

	got, _ := withPool(node, second)
	g.Expect(got.Labels).To(HaveKeyWithValue("shared", "1"), "the first pool's value stays")
	g.Expect(got.Labels).To(HaveKeyWithValue("own", "yes"))
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{{Key: "shared", Effect: corev1.TaintEffectNoSchedule}}))
	g.Expect(got.Annotations).To(HaveKeyWithValue(poolRecordAnnotation("second"), `{"labels":{"own":"yes"}}`),
		"the second pool records only what it set")

	_, change := withPool(got, first)
	g.Expect(change).To(Equal(nodeUnchanged), "the two pools do not take turns overwriting each other")
}

// A record is an annotation, which the node's kubelet may write: one that is not JSON
// must not stop the pool for ever (from lesson 06, a deleted pool would never go). The
// pool treats it as empty and writes its own in its place.
func TestWithPoolDropsARecordItCannotRead(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("web", map[string]string{"pool.example/web": "1"},
		corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): ""})
	node.Annotations = map[string]string{poolRecordAnnotation("web"): "edited by hand"}

	got, change := withPool(node, pool)
	g.Expect(change).To(Equal(nodeJoined), "without a record, the pool had given the node nothing")
	g.Expect(got.Labels).To(HaveKeyWithValue("pool.example/web", "1"))
	g.Expect(got.Spec.Taints).To(ConsistOf(corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule}))
	g.Expect(got.Annotations[poolRecordAnnotation("web")]).To(HavePrefix("{"), "the pool's own record replaces it")

	delete(got.Labels, poolMemberLabel("web"))
	got.Annotations[poolRecordAnnotation("web")] = "edited by hand"
	left, change := withPool(got, pool)
	g.Expect(change).To(Equal(nodeLeft))
	g.Expect(left.Annotations).NotTo(HaveKey(poolRecordAnnotation("web")),
		"a node that left keeps no record, readable or not")
	g.Expect(left.Labels).To(HaveKeyWithValue("pool.example/web", "1"),
		"without a record the pool cannot tell its labels from someone else's: it leaves them")
}

func TestConcernsPoolMembersAndTheNodesThatLeft(t *testing.T) {
	g := NewWithT(t)
	member := nodeWith("n1", map[string]string{poolMemberLabel("web"): ""})
	left := nodeWith("n2", nil)
	left.Annotations = map[string]string{poolRecordAnnotation("web"): `{"labels":{"zone":"a"}}`}
	other := nodeWith("n3", map[string]string{poolMemberLabel("db"): ""})

	g.Expect(concernsPool(member, "web")).To(BeTrue(), "a member gets the pool's labels and taints")
	g.Expect(concernsPool(left, "web")).To(BeTrue(),
		"a node that left the pool still carries the pool's record, and must lose what the pool gave it")
	g.Expect(concernsPool(other, "web")).To(BeFalse(), "a node with neither is none of the pool's business")
}
