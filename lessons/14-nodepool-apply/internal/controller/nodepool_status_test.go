package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/14-nodepool-apply/api/nodes/v1"
)

func TestNodePoolStatusCountsTheMembersAndTheirResources(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("status")
	a := createTestNode(t, g, name+"-a", map[string]string{poolMemberLabel(name): ""})
	b := createTestNode(t, g, name+"-b", map[string]string{poolMemberLabel(name): ""})
	outsider := createTestNode(t, g, name+"-outsider", nil)
	for _, node := range []*corev1.Node{a, b, outsider} {
		setAllocatable(g, node, "4", "8Gi")
	}
	pool := createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))

	g.Eventually(func(g Gomega) {
		got := latestPool(g, pool)
		g.Expect(got.Status.NodeCount).To(BeEquivalentTo(2),
			"status.nodeCount should count the members: each pass counts from zero, not on from the count it read")
		g.Expect(got.Status.Allocatable).To(haveQuantities("8", "16Gi"),
			"status.allocatable should add up the members' allocatable resources")
		g.Expect(got).To(havePoolReady(metav1.ConditionTrue, nodesv1.ReasonNodesConfigured), "the Ready condition")
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), "status.observedGeneration")
	}).Should(Succeed())

	setAllocatable(g, b, "2", "8Gi")
	g.Eventually(func(g Gomega) {
		g.Expect(latestPool(g, pool).Status.Allocatable).To(haveQuantities("6", "16Gi"),
			"status.allocatable should follow a member's allocatable resources")
	}).Should(Succeed())

	labelNode(g, a, poolMemberLabel(name), nil)
	g.Eventually(func(g Gomega) {
		got := latestPool(g, pool)
		g.Expect(got.Status.NodeCount).To(BeEquivalentTo(1), "a node that left no longer counts")
		g.Expect(got.Status.Allocatable).To(haveQuantities("2", "8Gi"), "nor do its allocatable resources")
	}).Should(Succeed())

	labelNode(g, b, poolMemberLabel(name), nil)
	g.Eventually(func(g Gomega) {
		got := latestPool(g, pool)
		g.Expect(got.Status.NodeCount).To(BeZero(), "no member left to count")
		g.Expect(got.Status.Allocatable).To(BeEmpty(), "no member's resources left to add up")
		g.Expect(got).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonNoNodes),
			"a pool without members has nowhere to run its pods")
	}).Should(Succeed())
}

// Passes driven by hand, whose node patches fail and then work again.
func TestAFailingNodePoolPassReportsItsErrorOnce(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	pool, _ := createUnmanagedPoolWithMember(t, g, uniqueName("failing"), sampleLabels)
	recorder := events.NewFakeRecorder(10)
	broken := newReconciler(&failingNodePatches{Client: env.Client(), err: errForbidden})
	broken.Recorder = recorder
	working := newReconciler(env.Client())
	working.Recorder = recorder

	for pass := range 3 {
		_, err := broken.Reconcile(ctx, requestFor(pool))
		g.Expect(err).To(MatchError(errForbidden), "a pass whose node patches fail should return their error, to be retried")
		got := latestPool(g, pool)
		g.Expect(got).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonReconcileError), "the Ready condition")
		g.Expect(poolReadyCondition(got).Message).To(ContainSubstring(errForbidden.Error()), "the Ready condition should say what failed")
		g.Expect(got.Status.ObservedGeneration).To(BeZero(), "a failed pass has not acted on the spec")
		if pass == 0 {
			g.Expect(takeEvents(recorder)).To(HaveExactElements(HavePrefix("Warning ReconcileError")),
				"a new error should be told once, as a Warning event")
		} else {
			g.Expect(takeEvents(recorder)).To(BeEmpty(), "the same error again is no news: no event on retry %d "+
				"(a Warning event goes out when the Ready condition's message is new)", pass)
		}
	}

	runPass(g, working, pool)
	got := latestPool(g, pool)
	g.Expect(got).To(havePoolReady(metav1.ConditionTrue, nodesv1.ReasonNodesConfigured),
		"the pass that succeeds should take the error back from the Ready condition")
	g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(1), "status.observedGeneration once a pass has succeeded")
	g.Expect(takeEvents(recorder)).To(HaveExactElements(HavePrefix("Normal NodeJoined")),
		"the pass that succeeds should tell of the member that joined, in one event, and of nothing else")
}

// `kubectl get nodepools` asks the API server for a table, whose columns are the CRD's
// printer columns.
func TestKubectlGetNodePoolsShowsStatusAndNodeCount(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("columns")
	createMember(t, g, name)
	pool := createPool(t, g, newNodePool(name, sampleLabels))
	g.Eventually(func(g Gomega) {
		g.Expect(latestPool(g, pool).Status.NodeCount).To(BeEquivalentTo(1), "the running manager should count the member")
	}).Should(Succeed())

	table := getTable(g, "/apis/nodes.workshop.dev/v1/nodepools/"+name)
	var columns []string
	for _, c := range table.ColumnDefinitions {
		columns = append(columns, c.Name)
	}
	g.Expect(columns).To(Equal([]string{"Name", "Status", "NodeCount", "Handler", "Age"}),
		"the printer columns of `kubectl get nodepools`")
	g.Expect(table.Rows).To(HaveLen(1), "kubectl get nodepools NAME shows one row")
	g.Expect(table.Rows[0].Cells[:4]).To(Equal([]any{name, nodesv1.ReasonNodesConfigured, float64(1), "runc"}),
		"STATUS should be the Ready condition's reason and NODECOUNT the number of members")
}

// The status keeps every key the pool's spec has listed (rememberListedKeys), and a record
// on a node, which the node's kubelet may forge, takes back only those: a record that
// lists a key the pool never listed takes nothing from the node, not the admin's taint,
// not a label the kubelet may not change itself. What an earlier spec listed still goes.
func TestAForgedRecordTakesNothingThePoolNeverListed(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("forged-own")
	adminTaint := corev1.Taint{Key: "admin.test/quarantine", Value: "yes", Effect: corev1.TaintEffectNoExecute}
	restricted := "node-restriction.kubernetes.io/secure"
	member := createTestNode(t, g, name+"-member", map[string]string{poolMemberLabel(name): "", restricted: "yes"}, adminTaint)
	pool := createPool(t, g, unmanagedPool(newNodePool(name, sampleLabels, sampleTaint)))
	r := newReconciler(env.Client())

	runPass(g, r, pool)
	forged := recordOf(map[string]string{"node-pool.workshop.dev/master": "8", "node-pool.workshop.dev/test": "2", restricted: "yes"},
		sampleTaint, adminTaint)
	annotateNode(g, member, poolRecordAnnotation(name), forged)
	runPass(g, r, pool)
	got := latestNode(g, member)
	g.Expect(got.Spec.Taints).To(ContainElement(adminTaint), "the pool never listed the admin's taint: it must stay")
	g.Expect(got.Labels).To(HaveKeyWithValue(restricted, "yes"), "the pool never listed the label: it must stay")

	// A key the pool listed before still goes when the spec drops it.
	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) {
		spec.Labels = map[string]string{"node-pool.workshop.dev/master": "10"}
	})
	runPass(g, r, pool)
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
	r := newReconciler(env.Client())

	_, err := r.Reconcile(ctx, requestFor(&nodesv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: first}}))
	g.Expect(err).NotTo(HaveOccurred(), "the pass of the first pool should succeed")
	recorder := events.NewFakeRecorder(100)
	r.Recorder = recorder
	runPass(g, r, pool)
	g.Expect(takeEvents(recorder)).To(ContainElement(HavePrefix("Warning KeysHeldByOthers 1 of 2 members")),
		"a conflict that appears should be told by a Warning event, as the Conflict condition turns True")
	runPass(g, r, pool)
	g.Expect(takeEvents(recorder)).NotTo(ContainElement(HavePrefix("Warning KeysHeldByOthers")),
		"a conflict that lasts should be told once: the next pass finds it in the Conflict condition already")

	g.Expect(latestNode(g, shared).Labels).To(HaveKeyWithValue("pool.test/tier", "1"), "the first pool keeps its key")
	got := latestPool(g, pool)
	g.Expect(got.Status.NodeCount).To(BeEquivalentTo(1), "a member that does not carry the pool's labels does not count")
	g.Expect(got.Status.Allocatable).To(haveQuantities("2", "4Gi"), "nor do its resources")
	g.Expect(got).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonNodesInConflict),
		"a member in conflict makes the pool not Ready")
	g.Expect(poolReadyCondition(got).Message).To(Equal(fmt.Sprintf(
		"1 of 2 members carry someone else's value for a key of this pool; first: node %s: label pool.test/tier=1 (pool %s)", shared.Name, first)),
		"the Ready condition's message should be the Conflict condition's")
}

// The status lists every key the pool gives before a node carries it: a pass that
// patched the nodes and then failed to write its status would leave a key that a later
// spec can never take back (within believes a record only for the listed keys).
func TestThePoolListsAKeyBeforeANodeCarriesIt(t *testing.T) {
	g := NewWithT(t)
	pool, _ := createUnmanagedPoolWithMember(t, g, uniqueName("listed-first"), sampleLabels, sampleTaint)
	watch := &listedAtNodePatch{Client: env.Client(), pool: pool.Name}
	r := newReconciler(watch)

	runPass(g, r, pool)
	g.Expect(watch.listed).To(HaveExactElements(HaveField("ListedLabels", ConsistOf(slices.Collect(maps.Keys(sampleLabels))))),
		"when the node was patched, the pool's status should already list the keys it gives")
	g.Expect(watch.listed[0].ListedTaints).To(ConsistOf(taintID(sampleTaint)))
}

// listedAtNodePatch is a client that reads the status of the pool named pool from the API
// server each time it patches a node.
type listedAtNodePatch struct {
	client.Client
	pool   string
	listed []nodesv1.NodePoolStatus
}

func (c *listedAtNodePatch) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if _, ok := obj.(*corev1.Node); ok {
		var pool nodesv1.NodePool
		if err := c.Get(ctx, clientKey(c.pool), &pool); err != nil {
			return err
		}
		c.listed = append(c.listed, pool.Status)
	}
	return c.Client.Patch(ctx, obj, patch, opts...)
}

// The status forgets a key that the spec no longer lists once no record on a node lists
// it: otherwise the lists grow with every spec the pool ever had.
func TestThePoolForgetsAKeyNoRecordLists(t *testing.T) {
	g := NewWithT(t)
	pool, _ := createUnmanagedPoolWithMember(t, g, uniqueName("forget"), sampleLabels, sampleTaint)
	r := newReconciler(env.Client())

	runPass(g, r, pool)
	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) {
		spec.Labels = map[string]string{"node-pool.workshop.dev/master": "10"}
		spec.Taints = nil
	})
	runPass(g, r, pool)
	got := latestPool(g, pool)
	g.Expect(got.Status.ListedLabels).To(ContainElement("node-pool.workshop.dev/test"),
		"the pass that takes test back from the nodes keeps it listed until no record lists it")

	runPass(g, r, pool)
	got = latestPool(g, pool)
	g.Expect(got.Status.ListedLabels).To(Equal([]string{"node-pool.workshop.dev/master"}),
		"no record lists test any more: the status should forget it")
	g.Expect(got.Status.ListedTaints).To(BeEmpty(), "nor does any record list the taint")
}

// An admin's value for a key of the pool is a conflict, as another pool's is: the pool
// leaves it (lesson 05), and its RuntimeClass's pods would never land there.
func TestConflictsOnNamesSomeoneElsesValue(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("web", map[string]string{"team/tier": "pool", "zone": "b"}, noSchedule("dedicated", "db"))
	node := nodeWith("n1", map[string]string{poolMemberLabel("web"): "", "team/tier": "admin", "zone": "b"},
		noSchedule("dedicated", "admin"))
	g.Expect(conflictsOn(node, pool)).To(Equal([]string{"label team/tier=admin", "taint dedicated=admin:NoSchedule"}),
		"the admin's values are conflicts; zone=b, the pool's value, is none")

	given, _ := withPool(nodeWith("n1", map[string]string{poolMemberLabel("web"): ""}), pool)
	given.Labels["zone"] = "c"
	g.Expect(conflictsOn(given, pool)).To(Equal([]string{"label zone=c"}),
		"a value someone changed after the pool gave it is theirs, and a conflict; the pool's own are none")
}

// A record the pool cannot read is dropped (lesson 05), and what the pool gave that node
// stays there: the pool says so, in a condition and in a Warning event, once.
func TestAPoolTellsOfARecordItDropped(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("dropped")
	pool, member := createUnmanagedPoolWithMember(t, g, name, sampleLabels)
	recorder := events.NewFakeRecorder(10)
	r := newReconciler(env.Client())
	r.Recorder = recorder

	runPass(g, r, pool)
	takeEvents(recorder)
	annotateNode(g, member, poolRecordAnnotation(name), "written by the kubelet")

	runPass(g, r, pool)
	dropped := meta.FindStatusCondition(latestPool(g, pool).Status.Conditions, nodesv1.ConditionUnreadableRecords)
	g.Expect(dropped).NotTo(BeNil(), "the pool should say that it dropped a record")
	g.Expect(*dropped).To(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", nodesv1.ReasonRecordsDropped),
		HaveField("Message", ContainSubstring("node "+member.Name))),
		"the UnreadableRecords condition should be True RecordsDropped, naming the node")
	g.Expect(takeEvents(recorder)).To(ContainElement(HavePrefix("Warning RecordDropped")),
		"a dropped record should be told in a Warning event")

	runPass(g, r, pool)
	g.Expect(takeEvents(recorder)).To(BeEmpty(), "the record is the pool's own again: nothing more to tell")
	g.Expect(latestPool(g, pool).Status.Conditions).To(ContainElement(And(
		HaveField("Type", nodesv1.ConditionUnreadableRecords), HaveField("Status", metav1.ConditionFalse))),
		"the UnreadableRecords condition should turn False once every record reads")
}

// setAllocatable gives node allocatable resources, as its kubelet would report them.
func setAllocatable(g Gomega, node *corev1.Node, cpu, memory string) {
	got := latestNode(g, node)
	got.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}
	g.ExpectWithOffset(1, env.Client().Status().Update(env.Context(), got)).To(Succeed(), "setting the allocatable resources of node %s", node.Name)
}

// haveQuantities matches a ResourceList of cpu and memory, compared by value.
func haveQuantities(cpu, memory string) types.GomegaMatcher {
	return WithTransform(func(list corev1.ResourceList) map[corev1.ResourceName]string {
		values := map[corev1.ResourceName]string{}
		for name, q := range list {
			values[name] = q.String()
		}
		return values
	}, Equal(map[corev1.ResourceName]string{
		corev1.ResourceCPU:    canonical(cpu),
		corev1.ResourceMemory: canonical(memory),
	}))
}

// canonical returns the quantity s as the API server writes it.
func canonical(s string) string {
	q := resource.MustParse(s)
	return q.String()
}

// havePoolReady matches a NodePool whose Ready condition has status and reason. Its
// failure says what the condition holds, message included: "Value for field 'Status'
// failed to satisfy matcher" would tell a learner neither which condition nor why.
func havePoolReady(status metav1.ConditionStatus, reason string) types.GomegaMatcher {
	return poolReadyMatcher{status: status, reason: reason}
}

type poolReadyMatcher struct {
	status metav1.ConditionStatus
	reason string
}

func (m poolReadyMatcher) Match(actual any) (bool, error) {
	pool, ok := actual.(*nodesv1.NodePool)
	if !ok {
		return false, fmt.Errorf("havePoolReady matches a *NodePool, not a %T", actual)
	}
	ready := poolReadyCondition(pool)
	return ready.Status == m.status && ready.Reason == m.reason, nil
}

func (m poolReadyMatcher) FailureMessage(actual any) string {
	return fmt.Sprintf("Expected the Ready condition %s %s, found %s", m.status, m.reason, readyOf(actual))
}

func (m poolReadyMatcher) NegatedFailureMessage(actual any) string {
	return fmt.Sprintf("Expected a Ready condition other than %s %s, found %s", m.status, m.reason, readyOf(actual))
}

// readyOf describes the Ready condition of pool: its status, reason and message, or that
// it has none.
func readyOf(actual any) string {
	pool, ok := actual.(*nodesv1.NodePool)
	if !ok {
		return fmt.Sprintf("a %T", actual)
	}
	ready := meta.FindStatusCondition(pool.Status.Conditions, nodesv1.ConditionReady)
	if ready == nil {
		return "no Ready condition (no status patch yet?)"
	}
	return fmt.Sprintf("%s %s (observedGeneration %d of %d): %q", ready.Status, ready.Reason,
		ready.ObservedGeneration, pool.Generation, shorten(ready.Message, 300))
}

// poolReadyCondition returns pool's Ready condition, or an empty one when it has none.
func poolReadyCondition(pool *nodesv1.NodePool) metav1.Condition {
	if ready := meta.FindStatusCondition(pool.Status.Conditions, nodesv1.ConditionReady); ready != nil {
		return *ready
	}
	return metav1.Condition{}
}

// getTable reads path from the API server as the table kubectl get prints.
func getTable(g Gomega, path string) *metav1.Table {
	clientset, err := kubernetes.NewForConfig(env.Config())
	g.Expect(err).NotTo(HaveOccurred())
	body, err := clientset.CoreV1().RESTClient().Get().AbsPath(path).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(env.Context())
	g.Expect(err).NotTo(HaveOccurred(), "GET %s: %s", path, body)
	var table metav1.Table
	g.Expect(json.Unmarshal(body, &table)).To(Succeed())
	return &table
}

// errForbidden is how the API server refuses a node patch that the node authorizer does
// not allow.
var errForbidden = errors.New("nodes is forbidden: the node authorizer says no")

// failingNodePatches is a client whose node patches and applies all fail with err, while
// it is set.
type failingNodePatches struct {
	client.Client
	err error
}

func (f *failingNodePatches) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if _, ok := obj.(*corev1.Node); ok && f.err != nil {
		return fmt.Errorf("patching node %s: %w", obj.GetName(), f.err)
	}
	return f.Client.Patch(ctx, obj, patch, opts...)
}

func (f *failingNodePatches) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	if node, ok := obj.(*corev1ac.NodeApplyConfiguration); ok && f.err != nil {
		return fmt.Errorf("applying node %s: %w", *node.GetName(), f.err)
	}
	return f.Client.Apply(ctx, obj, opts...)
}
