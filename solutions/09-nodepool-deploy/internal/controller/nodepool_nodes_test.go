package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/api/nodes/v1"
)

// The pure part of a pass: what withPool makes of one node, and the functions it is
// made of, called directly rather than through the API server:
// `go test -run 'TestSetPool|TestWithPool|TestConcernsPool' ./internal/controller` runs
// them alone, once TestMain has started the API server the package's other tests use.

func TestSetPoolLabelsChangesOnlyThePoolsKeys(t *testing.T) {
	g := NewWithT(t)
	node := nodeWith("n1", map[string]string{"team": "blue", "pool.example/old": "1", "pool.example/tier": "1"})

	setPoolLabels(node, []string{"pool.example/old", "pool.example/tier"}, map[string]string{"pool.example/tier": "2", "zone": "a"})
	g.Expect(node.Labels).To(Equal(map[string]string{"team": "blue", "pool.example/tier": "2", "zone": "a"}),
		"a recorded key the pool no longer lists goes, a listed key takes the pool's value, "+
			"and a label the pool never recorded stays")

	bare := nodeWith("n2", nil)
	setPoolLabels(bare, nil, map[string]string{"zone": "a"})
	g.Expect(bare.Labels).To(Equal(map[string]string{"zone": "a"}), "a node without labels gets the pool's")

	setPoolLabels(bare, []string{"zone"}, nil)
	g.Expect(bare.Labels).To(BeEmpty(), "a pool that lists nothing takes back all it recorded")
}

func TestSetPoolTaintsKeepsEveryOtherTaintInItsPlace(t *testing.T) {
	g := NewWithT(t)
	admin := corev1.Taint{Key: "pool.example/gpu", Value: "draining", Effect: corev1.TaintEffectNoExecute}
	node := nodeWith("n1", nil,
		corev1.Taint{Key: "pool.example/old", Effect: corev1.TaintEffectNoSchedule},
		admin,
		corev1.Taint{Key: "pool.example/gpu", Value: "1", Effect: corev1.TaintEffectNoSchedule},
		corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoSchedule})

	setPoolTaints(node, []string{"pool.example/old:NoSchedule", "pool.example/gpu:NoSchedule"}, []corev1.Taint{
		{Key: "pool.example/gpu", Value: "2", Effect: corev1.TaintEffectNoSchedule},
		{Key: "pool.example/new", Effect: corev1.TaintEffectPreferNoSchedule},
	})
	g.Expect(node.Spec.Taints).To(Equal([]corev1.Taint{
		admin,
		{Key: "pool.example/gpu", Value: "2", Effect: corev1.TaintEffectNoSchedule},
		{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoSchedule},
		{Key: "pool.example/new", Effect: corev1.TaintEffectPreferNoSchedule},
	}), "a taint is known by its key and its effect: the recorded pool.example/old:NoSchedule goes, "+
		"pool.example/gpu:NoSchedule takes its new value in its place, the admin's pool.example/gpu:NoExecute "+
		"and team stay as they are, and the missing taint comes last")

	setPoolTaints(node, []string{"pool.example/gpu:NoSchedule", "pool.example/new:PreferNoSchedule"}, nil)
	g.Expect(node.Spec.Taints).To(Equal([]corev1.Taint{admin, {Key: "team", Value: "blue", Effect: corev1.TaintEffectNoSchedule}}),
		"a pool that lists nothing takes back all it recorded")
}

func TestWithPoolGivesAMemberThePoolsLabelsAndTaints(t *testing.T) {
	g := NewWithT(t)
	pool := poolWith("gpu", map[string]string{"pool.example/gpu": "a100", "pool.example/tier": "1"},
		corev1.Taint{Key: "pool.example/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule})
	// An admin's taint has the key of the pool's, and another effect: another taint.
	node := nodeWith("n1", map[string]string{poolMemberLabel("gpu"): "", "team": "blue"},
		corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoExecute},
		corev1.Taint{Key: "pool.example/gpu", Value: "draining", Effect: corev1.TaintEffectNoExecute})

	got, change, err := withPool(node, pool, knownPools(pool))
	g.Expect(err).NotTo(HaveOccurred())
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
		`{"labels":["pool.example/gpu","pool.example/tier"],"taints":["pool.example/gpu:NoSchedule"]}`),
		"the record lists what the pool gave, sorted")
	g.Expect(node.Labels).To(HaveLen(2), "withPool changes a copy, never the node it was given")
	g.Expect(node.Spec.Taints).To(HaveLen(2), "withPool changes a copy, never the node it was given")

	again, change, err := withPool(got, pool, knownPools(pool))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(change).To(Equal(nodeUnchanged), "a node that carries what the pool gives needs nothing")
	g.Expect(again).To(Equal(got))
}

func TestWithPoolRemovesOnlyWhatThePoolGaveAndNoLongerGives(t *testing.T) {
	g := NewWithT(t)
	before := poolWith("web", map[string]string{"pool.example/master": "8", "pool.example/test": "2"},
		corev1.Taint{Key: "pool.example/web", Value: "a", Effect: corev1.TaintEffectNoSchedule},
		corev1.Taint{Key: "pool.example/old", Effect: corev1.TaintEffectPreferNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "team": "blue"},
		corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoSchedule})
	node, _, err := withPool(node, before, knownPools(before))
	g.Expect(err).NotTo(HaveOccurred())
	// Someone else sets a label and a taint the pool never listed.
	node.Labels["zone"] = "a"
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute})

	after := poolWith("web", map[string]string{"pool.example/master": "10"},
		corev1.Taint{Key: "pool.example/web", Value: "b", Effect: corev1.TaintEffectNoSchedule})
	// The pass that gave before's labels remembered them in the pool's status.
	addListedKeys(after, sets.List(specKeys(before).labels), sets.List(specKeys(before).taints))
	got, change, err := withPool(node, after, knownPools(after))
	g.Expect(err).NotTo(HaveOccurred())
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
		`{"labels":["pool.example/master"],"taints":["pool.example/web:NoSchedule"]}`))
}

func TestWithPoolTakesEverythingBackFromANodeThatLeft(t *testing.T) {
	g := NewWithT(t)
	pool := poolWith("web", map[string]string{"pool.example/web": "1"},
		corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "team": "blue"},
		corev1.Taint{Key: "team", Effect: corev1.TaintEffectNoSchedule})
	node, _, err := withPool(node, pool, knownPools(pool))
	g.Expect(err).NotTo(HaveOccurred())
	delete(node.Labels, poolMemberLabel("web"))

	got, change, err := withPool(node, pool, knownPools(pool))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(change).To(Equal(nodeLeft))
	g.Expect(got.Labels).To(Equal(map[string]string{"team": "blue"}))
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{{Key: "team", Effect: corev1.TaintEffectNoSchedule}}))
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation("web")), "a node outside the pool carries no record")
}

func TestWithPoolOverwritesTheValueOfAKeyItLists(t *testing.T) {
	g := NewWithT(t)
	pool := poolWith("web", map[string]string{"zone": "b"})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "zone": "a"})

	got, _, err := withPool(node, pool, knownPools(pool))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Labels).To(HaveKeyWithValue("zone", "b"), "the pool's value wins for a key it lists")
	g.Expect(got.Annotations).To(HaveKeyWithValue(poolRecordAnnotation("web"), `{"labels":["zone"]}`),
		"from then on the key is the pool's, and goes when the pool stops listing it")
}

func TestWithPoolLeavesAKeyToThePoolThatSetItFirst(t *testing.T) {
	g := NewWithT(t)
	first := poolWith("first", map[string]string{"shared": "1"},
		corev1.Taint{Key: "shared", Effect: corev1.TaintEffectNoSchedule})
	second := poolWith("second", map[string]string{"shared": "2", "own": "yes"},
		corev1.Taint{Key: "shared", Value: "2", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("first"): "", poolMemberLabel("second"): ""})
	both := knownPools(first, second)
	node, _, err := withPool(node, first, both)
	g.Expect(err).NotTo(HaveOccurred())

	got, _, err := withPool(node, second, both)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Labels).To(HaveKeyWithValue("shared", "1"), "the first pool's value stays")
	g.Expect(got.Labels).To(HaveKeyWithValue("own", "yes"))
	g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{{Key: "shared", Effect: corev1.TaintEffectNoSchedule}}))
	g.Expect(got.Annotations).To(HaveKeyWithValue(poolRecordAnnotation("second"), `{"labels":["own"]}`),
		"the second pool records only what it set")

	_, change, err := withPool(got, first, both)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(change).To(Equal(nodeUnchanged), "the two pools do not take turns overwriting each other")
}

// A record is an annotation, which the node's kubelet may write: one that is not JSON
// must not stop the pool for ever (from lesson 06, a deleted pool would never go). The
// pool treats it as empty and writes its own in its place.
func TestWithPoolDropsARecordItCannotRead(t *testing.T) {
	g := NewWithT(t)
	pool := poolWith("web", map[string]string{"pool.example/web": "1"},
		corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule})
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): ""})
	node.Annotations = map[string]string{poolRecordAnnotation("web"): "edited by hand"}

	got, change, err := withPool(node, pool, knownPools(pool))
	g.Expect(err).NotTo(HaveOccurred(), "a record the pool cannot read is dropped, not an error of every pass")
	g.Expect(change).To(Equal(nodeJoined), "without a record, the pool had given the node nothing")
	g.Expect(got.Labels).To(HaveKeyWithValue("pool.example/web", "1"))
	g.Expect(got.Spec.Taints).To(ConsistOf(corev1.Taint{Key: "pool.example/web", Effect: corev1.TaintEffectNoSchedule}))
	g.Expect(got.Annotations[poolRecordAnnotation("web")]).To(HavePrefix("{"), "the pool's own record replaces it")

	delete(got.Labels, poolMemberLabel("web"))
	got.Annotations[poolRecordAnnotation("web")] = "edited by hand"
	left, change, err := withPool(got, pool, knownPools(pool))
	g.Expect(err).NotTo(HaveOccurred())
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
	left.Annotations = map[string]string{poolRecordAnnotation("web"): `{"labels":["zone"]}`}
	other := nodeWith("n3", map[string]string{poolMemberLabel("db"): ""})

	g.Expect(concernsPool(member, "web")).To(BeTrue(), "a member gets the pool's labels and taints")
	g.Expect(concernsPool(left, "web")).To(BeTrue(),
		"a node that left the pool still carries the pool's record, and must lose what the pool gave it")
	g.Expect(concernsPool(other, "web")).To(BeFalse(), "a node with neither is none of the pool's business")
}

// knownPools returns the keys of pools, by name, as listPools does for the pools that
// exist.
func knownPools(pools ...*nodesv1.NodePool) map[string]poolKeys {
	known := map[string]poolKeys{}
	for _, pool := range pools {
		known[pool.Name] = listedKeys(pool)
	}
	return known
}

func poolWith(name string, labels map[string]string, taints ...corev1.Taint) *nodesv1.NodePool {
	return &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       nodesv1.NodePoolSpec{Labels: labels, Taints: taints, Handler: "runc"},
	}
}

func nodeWith(name string, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: taints},
	}
}
