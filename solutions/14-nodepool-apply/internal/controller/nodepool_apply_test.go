package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

// From lesson 14 on, each pool applies its labels with a field manager of its own, and
// the API server records, in the node's managedFields, which manager owns which label.

// ownedLabels returns, sorted, the label keys manager owns on node by operation.
func ownedLabels(node *corev1.Node, manager string, operation metav1.ManagedFieldsOperationType) []string {
	var keys []string
	for _, entry := range node.ManagedFields {
		if entry.Manager == manager && entry.Operation == operation && entry.FieldsV1 != nil {
			keys = append(keys, labelKeys(entry.FieldsV1)...)
		}
	}
	sort.Strings(keys)
	return keys
}

// writeLabels sets labels of node as manager, with an update (kubectl label does so).
func writeLabels(g Gomega, node *corev1.Node, manager string, labels map[string]string) {
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), node, client.RawPatch(types.MergePatchType,
		fmt.Appendf(nil, `{"metadata":{"labels":%s}}`, jsonOf(labels))), client.FieldOwner(manager))).To(Succeed())
}

// nodesFromTheCache returns a client that reads nodes from the manager's cache, as the
// manager's client does, and the rest from the API server: the cache leaves out the
// unmanaged pools the tests drive by hand.
func nodesFromTheCache(g Gomega) client.Client {
	c, err := client.New(env.Config(), client.Options{Scheme: env.Scheme(), Cache: &client.CacheOptions{
		Reader:     env.Manager().GetCache(),
		DisableFor: []client.Object{&nodesv1.NodePool{}, &nodev1.RuntimeClass{}},
	}})
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return c
}

// twoPoolsAndAnAdmin makes a node that belongs to two pools, gold and silver, with a
// label an admin set, and gives it both pools' labels: gold's tier=gold and
// shared=yes, silver's disk=ssd and shared=yes.
func twoPoolsAndAnAdmin(t *testing.T, g Gomega) (node *corev1.Node, gold, silver *nodesv1.NodePool) {
	name := uniqueName("applied")
	gold = createPool(t, g, unmanagedPool(newNodePool(name+"-gold", map[string]string{"pool.test/tier": "gold", "pool.test/shared": "yes"})))
	silver = createPool(t, g, unmanagedPool(newNodePool(name+"-silver", map[string]string{"pool.test/disk": "ssd", "pool.test/shared": "yes"})))
	node = createTestNode(t, g, name, map[string]string{poolMemberLabel(gold.Name): "", poolMemberLabel(silver.Name): ""})
	writeLabels(g, node, "kubectl-label", map[string]string{"team": "blue"})
	r := newReconciler(env.Client())
	for _, pool := range []*nodesv1.NodePool{gold, silver} {
		runPass(g, r, pool)
	}
	return node, gold, silver
}

// aPoolAndAnAdminsTier makes a member of a pool, named after prefix, that gives
// tier=pool and zone=a; an admin labelled the member tier=admin before the pool came.
func aPoolAndAnAdminsTier(t *testing.T, g Gomega, prefix string) (node *corev1.Node, pool *nodesv1.NodePool) {
	name := uniqueName(prefix)
	node = createMember(t, g, name)
	writeLabels(g, node, "kubectl-label", map[string]string{"pool.test/tier": "admin"})
	pool = createPool(t, g, unmanagedPool(newNodePool(name, map[string]string{"pool.test/tier": "pool", "pool.test/zone": "a"})))
	return node, pool
}

func TestEachPoolAppliesItsLabelsWithAFieldManagerOfItsOwn(t *testing.T) {
	g := NewWithT(t)
	node, gold, silver := twoPoolsAndAnAdmin(t, g)

	got := latestNode(g, node)
	g.Expect(got.Labels).To(Equal(map[string]string{
		poolMemberLabel(gold.Name): "", poolMemberLabel(silver.Name): "", "team": "blue",
		"pool.test/tier": "gold", "pool.test/disk": "ssd", "pool.test/shared": "yes",
	}), "both pools' labels should be on the node: one field manager for all pools? "+
		"Each apply says all its manager wants, and silver's apply would take back gold's labels")
	g.Expect(ownedLabels(got, poolFieldManager(gold.Name), metav1.ManagedFieldsOperationApply)).To(
		Equal([]string{"pool.test/shared", "pool.test/tier"}),
		"the field manager of pool %s (an apply) should own its labels, and only those", gold.Name)
	g.Expect(ownedLabels(got, poolFieldManager(silver.Name), metav1.ManagedFieldsOperationApply)).To(
		Equal([]string{"pool.test/disk", "pool.test/shared"}),
		"the field manager of pool %s (an apply) should own its labels, and only those", silver.Name)
	g.Expect(poolFieldManager(gold.Name)).NotTo(Equal(poolFieldManager(silver.Name)),
		"one field manager for all pools: the API server could not tell what each pool applied")
}

// An admin's label with another value is theirs: the pool does not force its own, the
// API server refuses the key, and the pool applies the rest and reports the conflict.
func TestALabelAnotherManagerOwnsIsReportedNotOverwritten(t *testing.T) {
	g := NewWithT(t)
	node, pool := aPoolAndAnAdminsTier(t, g, "conflict")

	runPass(g, newReconciler(env.Client()), pool, "a conflict is for someone to resolve, not an error to retry")
	got := latestNode(g, node)
	g.Expect(got.Labels).To(HaveKeyWithValue("pool.test/tier", "admin"),
		"an admin's label was taken over: the apply must never force (client.ForceOwnership)")
	g.Expect(got.Labels).To(HaveKeyWithValue("pool.test/zone", "a"), "the keys nobody else owns are applied all the same")
	g.Expect(ownedLabels(got, "kubectl-label", metav1.ManagedFieldsOperationUpdate)).To(ContainElement("pool.test/tier"))
	condition := poolReadyCondition(latestPool(g, pool))
	g.Expect(condition).NotTo(BeNil())
	g.Expect(condition.Reason).To(Equal(nodesv1.ReasonNodesInConflict))
	g.Expect(condition.Message).To(ContainSubstring("label pool.test/tier=admin"))
}

func TestANodeThatLeavesLosesTheLabelsOnlyItsPoolOwned(t *testing.T) {
	g := NewWithT(t)
	node, gold, silver := twoPoolsAndAnAdmin(t, g)
	g.Expect(appliedLabels(latestNode(g, node), gold.Name)).To(Equal(map[string]string{"pool.test/tier": "gold", "pool.test/shared": "yes"}),
		"appliedLabels should read the labels the pool's field manager owns from the node's managedFields")

	labelNode(g, node, poolMemberLabel(gold.Name), nil)
	left := latestNode(g, node)
	g.Expect(concernsPool(left, gold.Name)).To(BeTrue(), "the node left pool %s, whose field manager still owns labels on it", gold.Name)
	runPass(g, newReconciler(env.Client()), gold)

	got := latestNode(g, node)
	g.Expect(got.Labels).To(Equal(map[string]string{
		poolMemberLabel(silver.Name): "", "team": "blue", "pool.test/disk": "ssd", "pool.test/shared": "yes",
	}), "the node left %s: its tier=gold goes (an empty apply: forgotten?), shared=yes stays, as %s owns it too, "+
		"and the admin's team=blue stays", gold.Name, silver.Name)
	g.Expect(ownedLabels(got, poolFieldManager(gold.Name), metav1.ManagedFieldsOperationApply)).To(BeEmpty())
	g.Expect(concernsPool(got, gold.Name)).To(BeFalse(), "nothing of the pool's is left on the node")
}

// Once the conflict is reported, the pool has applied all it can: the next pass reads
// from managedFields that the pool owns the rest, and leaves the key someone else holds
// out of its comparison, so it sends nothing.
func TestAConflictIsLeftOutOfTheNextApply(t *testing.T) {
	g := NewWithT(t)
	_, pool := aPoolAndAnAdminsTier(t, g, "conflict-again")
	writes := &writeLog{Client: env.Client()}
	r := newReconciler(writes)
	runPass(g, r, pool)
	g.Expect(poolReadyCondition(latestPool(g, pool)).Reason).To(Equal(nodesv1.ReasonNodesInConflict))

	writes.take()
	writes.takeApplies()
	runPass(g, r, pool)
	g.Expect(writes.takeApplies()).To(BeEmpty(),
		"the next pass applied again: a key another manager holds with another value is left out of the apply before it is sent, "+
			"and what the pool owns is read from managedFields (appliedLabels), not refused on every pass")
	g.Expect(writes.take()).To(BeEmpty(), "the next pass finds the node and the pool as the first left them")
}

// A conflict that names no label the apply sent (the API server sends none such, but an
// answer is not a promise) ends the attempt: leaving nothing out would send the same
// apply again, for ever.
func TestAConflictOnNoKeyOfTheApplyIsAnErrorNotALoop(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("conflict-elsewhere")
	node := createMember(t, g, name)
	pool := createPool(t, g, unmanagedPool(newNodePool(name, map[string]string{"pool.test/tier": "gold"})))
	refused := apierrors.NewApplyConflict([]metav1.StatusCause{{
		Type: metav1.CauseTypeFieldManagerConflict, Field: ".metadata.labels.pool.test/elsewhere",
	}}, "conflict")
	inner, err := client.NewWithWatch(env.Config(), client.Options{Scheme: env.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	applies := 0
	r := newReconciler(interceptor.NewClient(inner, interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			if applies++; applies < 3 {
				return refused
			}
			return c.Apply(ctx, obj, opts...)
		},
	}))

	_, err = r.applyLeavingConflicts(env.Context(), pool, latestNode(g, node), map[string]string{"pool.test/tier": "gold"})
	g.Expect(err).To(MatchError(refused), "the conflict names no key of the apply: nothing to leave out, so it is the answer")
	g.Expect(applies).To(Equal(1), "the same apply was sent again after a conflict that left nothing out")
}

// The operator of lesson 09 recorded the labels it gave in an annotation, and its field
// manager (an update) owns them. The pool takes them over without a moment without them,
// and can take them back.
func TestTheRecordOfLesson09IsTakenOverWithoutRemovingALabel(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("migrate")
	labels := map[string]string{"pool.test/tier": "gold", "pool.test/disk": "ssd"}
	pool := createPool(t, g, unmanagedPool(newNodePool(name, labels)))
	node := createMember(t, g, name)
	writeLabels(g, node, "kubectl-label", map[string]string{"team": "blue"})
	// As the operator of lesson 09 left it: the labels and the record in one patch.
	record := recordOf(labels)
	g.Expect(env.Client().Patch(ctx, node, client.RawPatch(types.MergePatchType, fmt.Appendf(nil,
		`{"metadata":{"labels":%s,"annotations":{%q:%q}}}`, jsonOf(labels), poolRecordAnnotation(name), record)),
		client.FieldOwner("nodepool-09"))).To(Succeed())

	// Sample every version of the node while the pass runs.
	watcher, err := client.NewWithWatch(env.Config(), client.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	w, err := watcher.Watch(ctx, &corev1.NodeList{}, client.MatchingFields{"metadata.name": node.Name},
		&client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: latestNode(g, node).ResourceVersion}})
	g.Expect(err).NotTo(HaveOccurred())
	defer w.Stop()

	// The pass reads the node from the manager's cache, as cmd/main.go's passes do: the
	// cache keeps only the managedFields entries a pass reads (poolManagedFields).
	cached := nodesFromTheCache(g)
	g.Eventually(func(g Gomega) {
		var seen corev1.Node
		g.Expect(cached.Get(ctx, client.ObjectKeyFromObject(node), &seen)).To(Succeed())
		g.Expect(seen.Annotations).To(HaveKey(poolRecordAnnotation(name)))
	}).Should(Succeed(), "the manager's cache should show the record")
	before := managersOf(latestNode(g, node), "", "f:metadata")
	runPass(g, newReconciler(cached), pool)
	got := latestNode(g, node)
	g.Expect(managersOf(got, "", "f:metadata")).To(ContainElements(slices.DeleteFunc(before, func(m string) bool { return m == "nodepool-09 Update" })),
		"every other manager's entry should stay: the patch that moves the labels sends metadata.managedFields whole, "+
			"so it must start from the node as the API server has it (r.APIReader), not from the cache's trimmed copy")
	g.Expect(got.Labels).To(Equal(map[string]string{poolMemberLabel(name): "", "team": "blue", "pool.test/tier": "gold", "pool.test/disk": "ssd"}))
	g.Expect(ownedLabels(got, poolFieldManager(name), metav1.ManagedFieldsOperationApply)).To(Equal([]string{"pool.test/disk", "pool.test/tier"}),
		"the pool's field manager should own the labels the record lists")
	g.Expect(ownedLabels(got, "nodepool-09", metav1.ManagedFieldsOperationUpdate)).To(BeEmpty(),
		"the manager of lesson 09 should own them no more: it would keep them on the node after the pool took them back")
	g.Expect(ownedLabels(got, "kubectl-label", metav1.ManagedFieldsOperationUpdate)).To(Equal([]string{"team"}), "the admin's ownership stays")
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation(name)), "nothing reads the record any more")
	versions := sampleVersions(w, got.ResourceVersion)
	g.Expect(versions).NotTo(BeEmpty())
	for _, version := range versions {
		g.Expect(version.Labels).To(HaveKeyWithValue("pool.test/tier", "gold"), "version %s lacks a label", version.ResourceVersion)
		g.Expect(version.Labels).To(HaveKeyWithValue("pool.test/disk", "ssd"), "version %s lacks a label", version.ResourceVersion)
	}

	labelNode(g, node, poolMemberLabel(name), nil)
	runPass(g, newReconciler(env.Client()), pool)
	g.Expect(latestNode(g, node).Labels).To(Equal(map[string]string{"team": "blue"}),
		"after the takeover, a node that leaves loses the pool's labels, and only those")
}

// A key dropped from the spec while the operator of lesson 09 was being replaced, or
// before its passes had reached every member, is still on the members as lesson 09 gave
// it: owned by its manager, listed in its records and in the pool's status. The pool
// takes it over with the rest (adoptRecordedLabels), and back, as lesson 09's own
// manager would have; a member on which someone else set the key keeps it.
func TestAKeyDroppedBeforeTheTakeoverIsTakenBack(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("dropped-midway")
	labels := map[string]string{"pool.test/tier": "gold", "pool.test/old": "yes"}
	pool := createPool(t, g, unmanagedPool(newNodePool(name, labels)))
	members := createMembers(t, g, name, 3)
	// An admin labelled the last member pool.test/old=yes before the pool came: lesson
	// 09 left the key theirs, and its record there lists tier alone.
	admins := members[2]
	writeLabels(g, admins, "kubectl-label", map[string]string{"pool.test/old": "yes"})
	for _, node := range members {
		given := labels
		if node == admins {
			given = map[string]string{"pool.test/tier": "gold"}
		}
		// As the operator of lesson 09 left it: the labels and the record in one patch.
		g.Expect(env.Client().Patch(ctx, node, client.RawPatch(types.MergePatchType, fmt.Appendf(nil,
			`{"metadata":{"labels":%s,"annotations":{%q:%q}}}`, jsonOf(given), poolRecordAnnotation(name), recordOf(given))),
			client.FieldOwner("nodepool-09"))).To(Succeed())
	}
	g.Expect(env.Client().Status().Patch(ctx, pool, client.RawPatch(types.MergePatchType,
		[]byte(`{"status":{"listedLabels":["pool.test/old","pool.test/tier"]}}`)), client.FieldOwner("nodepool-09"))).To(Succeed())
	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) { delete(spec.Labels, "pool.test/old") })

	r := newReconciler(env.Client())
	runPass(g, r, pool)
	runPass(g, r, pool)
	for _, node := range members[:2] {
		got := latestNode(g, node)
		g.Expect(got.Labels).To(Equal(map[string]string{poolMemberLabel(name): "", "pool.test/tier": "gold"}),
			"the key the spec dropped should leave %s, where lesson 09 gave it: the first pass must not forget a key "+
				"a record of lesson 09 lists (status.listedLabels) before it has taken the record over", node.Name)
		g.Expect(ownedLabels(got, "nodepool-09", metav1.ManagedFieldsOperationUpdate)).To(BeEmpty(),
			"the manager of lesson 09 should own no label of %s any more", node.Name)
	}
	got := latestNode(g, admins)
	g.Expect(got.Labels).To(HaveKeyWithValue("pool.test/old", "yes"),
		"the admin's label, which lesson 09's record never listed, stays on %s", admins.Name)
	g.Expect(ownedLabels(got, "kubectl-label", metav1.ManagedFieldsOperationUpdate)).To(Equal([]string{"pool.test/old"}),
		"the admin still owns the label lesson 09 left to them")
	g.Expect(latestPool(g, pool).Status.ListedLabels).To(Equal([]string{"pool.test/tier"}),
		"once no node carries the dropped key from the pool, the status lists it no more")
}

// A record is an annotation anyone who may write the node can forge: it moves only what
// its own writer owns, and an unreadable one moves nothing.
func TestAForgedOrUnreadableRecordMovesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("forged")
	pool := createPool(t, g, unmanagedPool(newNodePool(name, map[string]string{"pool.test/tier": "gold"})))
	forged := createMember(t, g, name)
	unreadable := createTestNode(t, g, name+"-unreadable", map[string]string{poolMemberLabel(name): ""})
	for node, record := range map[*corev1.Node]string{forged: recordOf(map[string]string{"pool.test/tier": "gold"}), unreadable: "edited by hand"} {
		writeLabels(g, node, "kubectl-label", map[string]string{"pool.test/tier": "gold"})
		g.Expect(env.Client().Patch(ctx, node, client.RawPatch(types.MergePatchType, fmt.Appendf(nil,
			`{"metadata":{"annotations":{%q:%q}}}`, poolRecordAnnotation(name), record)), client.FieldOwner("kubectl-annotate"))).To(Succeed())
	}
	r := newReconciler(env.Client())
	runPass(g, r, pool)
	for _, node := range []*corev1.Node{forged, unreadable} {
		g.Expect(ownedLabels(latestNode(g, node), "kubectl-label", metav1.ManagedFieldsOperationUpdate)).To(Equal([]string{"pool.test/tier"}),
			"the admin still owns the label a record on %s claims", node.Name)
		labelNode(g, node, poolMemberLabel(name), nil)
	}
	runPass(g, r, pool)
	for _, node := range []*corev1.Node{forged, unreadable} {
		g.Expect(latestNode(g, node).Labels).To(HaveKeyWithValue("pool.test/tier", "gold"),
			"the admin's label, which the pool applied too, stays on %s when it leaves", node.Name)
	}
}

// managersOf returns, sorted, "manager operation" for each managedFields entry of obj on
// subresource ("status", or "" for obj itself) that owns a field under top (f:status,
// f:spec, ...).
func managersOf(obj client.Object, subresource, top string) []string {
	var managers []string
	for _, entry := range obj.GetManagedFields() {
		fields, err := fieldsOf(entry.FieldsV1)
		if err == nil && entry.Subresource == subresource && childOf(fields, top) != nil {
			managers = append(managers, entry.Manager+" "+string(entry.Operation))
		}
	}
	sort.Strings(managers)
	return managers
}

// The pool's status and its RuntimeClass are the controller's alone: it applies them with
// a field manager of its own, and first takes over what it wrote before it applied (the
// merge patches of lesson 09, its create of the RuntimeClass), so that what an apply no
// longer says goes.
func TestTheStatusAndTheRuntimeClassAreAppliedAndLoseWhatThePoolNoLongerSays(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("applied-own")
	node := createMember(t, g, name)
	setAllocatable(g, node, "2", "4Gi")
	pool := createPool(t, g, unmanagedPool(newNodePool(name, map[string]string{"pool.test/tier": "gold", "pool.test/zone": "a"})))
	// The status as the operator of lesson 09 left it, by merge patch: a resource no
	// member has any more.
	g.Expect(env.Client().Status().Patch(ctx, pool, client.RawPatch(types.MergePatchType,
		[]byte(`{"status":{"nodeCount":1,"allocatable":{"cpu":"2","memory":"4Gi","example.com/gpu":"1"}}}`)),
		client.FieldOwner("nodepool-09"))).To(Succeed())

	r := newReconciler(env.Client())
	runPass(g, r, pool)
	got := latestPool(g, pool)
	g.Expect(got.Status.Allocatable).To(haveQuantities("2", "4Gi"),
		"example.com/gpu, which no member has, should go: the status is applied whole, after the "+
			"controller took over what the merge patches of lesson 09 owned (takeOverUpdates)")
	g.Expect(managersOf(got, "status", "f:status")).To(Equal([]string{ControllerFieldManager + " Apply"}),
		"the controller's field manager, by apply, should own the whole status")

	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) { delete(spec.Labels, "pool.test/zone") })
	runPass(g, r, pool)
	rc := runtimeClassOf(g, pool)
	g.Expect(rc.Scheduling).NotTo(BeNil())
	g.Expect(rc.Scheduling.NodeSelector).To(Equal(map[string]string{"pool.test/tier": "gold"}),
		"the label the pool no longer gives should leave the RuntimeClass's node selector: the apply "+
			"took over what the create owned (takeOverUpdates)")
	g.Expect(managersOf(&rc, "", "f:scheduling")).To(Equal([]string{ControllerFieldManager + " Apply"}),
		"the controller's field manager, by apply, should own the RuntimeClass's scheduling")
	g.Expect(metav1.IsControlledBy(&rc, got)).To(BeTrue(), "the RuntimeClass stays the pool's")
}

// sampleVersions returns the versions of a node a watch saw, up to the one at last, or
// those it saw in ten seconds.
func sampleVersions(w watch.Interface, last string) []*corev1.Node {
	var versions []*corev1.Node
	timeout := time.After(10 * time.Second)
	for {
		select {
		case event, ok := <-w.ResultChan():
			node, isNode := event.Object.(*corev1.Node)
			if !ok {
				return versions
			}
			if !isNode {
				continue
			}
			versions = append(versions, node)
			if node.ResourceVersion == last {
				return versions
			}
		case <-timeout:
			return versions
		}
	}
}

// jsonOf encodes labels.
func jsonOf(labels map[string]string) []byte {
	raw, _ := json.Marshal(labels) // strings always encode
	return raw
}
