package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/07-nodepool-status-events/api/nodes/v1"
)

// What a pass makes of the status before it patches it: the first three tests call the
// functions directly, and
// `go test -run 'TestCountMember|TestSetPoolReadyCondition|TestReadyCondition' ./internal/controller`
// runs them alone.

func TestCountMemberAddsTheNodeAndItsAllocatable(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("count", nil)
	a := nodeWith("a", nil)
	a.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi"),
	}
	b := nodeWith("b", nil)
	b.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi"),
		"nvidia.com/gpu": resource.MustParse("1"),
	}

	countMember(pool, a)
	countMember(pool, b)
	countMember(pool, nodeWith("c", nil))
	g.Expect(pool.Status.NodeCount).To(BeEquivalentTo(3), "three members, one of them without allocatable resources")
	g.Expect(pool.Status.Allocatable).To(HaveLen(3), "cpu, memory and the GPU")
	for name, want := range map[corev1.ResourceName]string{corev1.ResourceCPU: "2500m", corev1.ResourceMemory: "5Gi", "nvidia.com/gpu": "1"} {
		got := pool.Status.Allocatable[name]
		g.Expect(got.Cmp(resource.MustParse(want))).To(BeZero(), "allocatable %s: the members' sum is %s, got %s", name, want, got.String())
	}
	cpu := a.Status.Allocatable[corev1.ResourceCPU]
	g.Expect(cpu.String()).To(Equal("2"), "countMember adds to the pool's sums, never to a node's quantities")
}

func TestSetPoolReadyConditionSaysWhatThePassFound(t *testing.T) {
	members := []*corev1.Node{nodeWith("n2", nil), nodeWith("n3", nil)}
	tests := []struct {
		name      string
		members   []*corev1.Node
		conflicts []string
		passErr   error
		status    metav1.ConditionStatus
		reason    string
	}{
		{"a failed pass", members, nil, errors.New("patching node n1: the server is on fire"), metav1.ConditionFalse, nodesv1.ReasonReconcileError},
		{"someone else holds a key", members, []string{"node n1: label zone=a (pool other)"}, nil, metav1.ConditionFalse, nodesv1.ReasonNodesInConflict},
		{"no member", nil, nil, nil, metav1.ConditionFalse, nodesv1.ReasonNoNodes},
		{"members that carry the pool's labels and taints", members, nil, nil, metav1.ConditionTrue, nodesv1.ReasonNodesConfigured},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pool := newNodePool("ready", nil)
			pool.Generation = 4
			found := &passResult{sawNodes: true, members: tt.members, conflicts: tt.conflicts, err: tt.passErr}
			setPoolReadyCondition(pool, found)
			ready := meta.FindStatusCondition(pool.Status.Conditions, nodesv1.ConditionReady)
			g.Expect(ready).NotTo(BeNil(), "setPoolReadyCondition should set the Ready condition")
			g.Expect(ready.Status).To(Equal(tt.status), "the Ready condition's status")
			g.Expect(ready.Reason).To(Equal(tt.reason), "the Ready condition's reason")
			g.Expect(ready.ObservedGeneration).To(BeEquivalentTo(4), "the condition says which spec it is about")
			switch {
			case tt.passErr != nil:
				g.Expect(ready.Message).To(Equal(tt.passErr.Error()), "the message is the pass's error")
			case tt.conflicts != nil:
				g.Expect(ready.Message).To(Equal(conflictCondition(pool, found).Message),
					"the message is the Conflict condition's (conflictCondition)")
			default:
				g.Expect(ready.Message).NotTo(BeEmpty(), "the message says what the pass found")
			}
		})
	}
}

// However long a single error, the condition holds at most its limit, and stays valid
// UTF-8.
func TestReadyConditionMessageFitsTheCRDsLimit(t *testing.T) {
	g := NewWithT(t)
	pool := newNodePool("long", nil)
	setPoolReadyCondition(pool, &passResult{err: errors.New(strings.Repeat("é", 20000))})
	message := poolReadyCondition(pool).Message
	g.Expect(len(message)).To(BeNumerically("<=", 32768),
		"a message longer than the CRD's limit makes the API server refuse the status patch: cut it (shorten)")
	g.Expect(message).To(HaveSuffix("..."), "a cut message should end with ... (shorten)")
	g.Expect(utf8.ValidString(message)).To(BeTrue(), "a message cut in the middle of a character is not valid UTF-8 (shorten)")
}

// A condition's message holds at most 32768 bytes, and the API server refuses a status
// patch with a longer one: the pass's error would then show nowhere but in the log. The
// errors of 200 failing members, joined, are longer than that.
func TestManyFailingNodesStillFitTheReadyCondition(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("many-failing")
	const members = 200
	createMembers(t, g, name, members)
	pool := createPool(t, g, unmanagedPool(newNodePool(name, sampleLabels)))
	recorder := events.NewFakeRecorder(10)
	denied := errors.New(`admission webhook "nodes.policy.example.com" denied the request: ` +
		`labels under node-pool.workshop.dev may only be set by the platform team's tooling`)
	r := newReconciler(&failingNodePatches{Client: env.Client(), err: denied})
	r.Recorder = recorder

	_, err := r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).To(MatchError(denied), "the pass should return the nodes' error, to be retried")
	got := latestPool(g, pool)
	g.Expect(got).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonReconcileError),
		"the status patch should go through: its message must fit the CRD's limit")
	message := poolReadyCondition(got).Message
	g.Expect(len(message)).To(BeNumerically("<=", 32768), "the CRD's limit of a condition's message")
	g.Expect(message).To(HavePrefix(fmt.Sprintf("%d of %d failed; first: node %s-000: ", members, members, name)),
		"the message should count the failures and show the first, in the order of the nodes' names")
	g.Expect(message).To(ContainSubstring(denied.Error()), "the message should hold the nodes' error")
	g.Expect(takeEvents(recorder)).To(HaveExactElements(HavePrefix("Warning ReconcileError")),
		"the failed pass should send one event, the Warning that tells its error: a second Warning tells it twice, %s",
		everyPass)
}

// The retry of a failing pass comes within milliseconds, often before the cache shows
// the status patch of the pass before it. The cache then says the error is new, and the
// API server says it is not: it was told already.
func TestAStalePoolCacheTellsAnErrorOnce(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	pool, _ := createUnmanagedPoolWithMember(t, g, uniqueName("stale-pool"), sampleLabels)
	recorder := events.NewFakeRecorder(10)
	cache := &poolCacheBehind{Client: &failingNodePatches{Client: env.Client(), err: errForbidden}}
	r := newReconciler(cache)
	r.Recorder = recorder

	// The first pass adds the finalizer; from then on the cache shows the pool as it was
	// before the pass's status patch.
	_, err := r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).To(MatchError(errForbidden), "the pass should return the nodes' error, to be retried")
	g.Expect(takeEvents(recorder)).To(HaveExactElements(HavePrefix("Warning ReconcileError")),
		"a new error should be told once, as a Warning event, and by nothing else: a second Warning tells it twice, %s",
		everyPass)
	stale := latestPool(g, pool)
	stale.Status = nodesv1.NodePoolStatus{}
	cache.pool = stale

	for retry := range 2 {
		_, err := r.Reconcile(ctx, requestFor(pool))
		g.Expect(err).To(MatchError(errForbidden), "retry %d should return the nodes' error again", retry+1)
		g.Expect(takeEvents(recorder)).To(BeEmpty(),
			"retry %d: the same error again is no news: the API server's Ready condition holds it already, "+
				"only the cache is behind; %s", retry+1, everyPass)
	}
	g.Expect(latestPool(g, pool)).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonReconcileError),
		"the Ready condition should still hold the error the retries meet")
}

// A pass that fails says so in the Ready condition, and the retry that succeeds must take
// it back. The failed pass's status patch starts no pass of its own
// (GenerationChangedPredicate), and the retry may read the pool from a cache that does not
// show that patch yet: compared with that stale copy, what the retry finds is no change,
// and unless it looks further the error stays in the status until some other event comes,
// which may be never.
func TestARetryThatReadsAStalePoolStillClearsTheError(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	pool, member := createUnmanagedPoolWithMember(t, g, uniqueName("stale-retry"), sampleLabels)
	nodePatches := &failingNodePatches{Client: env.Client()}
	cache := &poolCacheBehind{Client: nodePatches}
	r := newReconciler(cache)

	runPass(g, r, pool, "the first pass's error")
	ready := poolReadyCondition(latestPool(g, pool))
	g.Expect(ready.Reason).NotTo(Equal(nodesv1.ReasonReconcileError), "the Ready condition after the first pass")

	// The cache falls behind; someone takes a label of the pool off the member, and the
	// pass that puts it back fails.
	cache.pool = latestPool(g, pool)
	for key := range sampleLabels {
		labelNode(g, member, key, nil)
	}
	nodePatches.err = errForbidden
	_, err := r.Reconcile(ctx, requestFor(pool))
	g.Expect(err).To(MatchError(errForbidden), "the failed pass's error")
	g.Expect(latestPool(g, pool)).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonReconcileError),
		"the Ready condition after the failed pass")

	// The retry succeeds, reading the pool from before the failed pass's status patch.
	nodePatches.err = nil
	runPass(g, r, pool, "the retry's error")
	g.Expect(latestPool(g, pool)).To(havePoolReady(ready.Status, ready.Reason),
		"the Ready condition after the retry succeeded: if it still says ReconcileError, the retry compared equal "+
			"with a stale copy of the pool, which the cache showed as it was before the failed pass's status patch, "+
			"and wrote nothing; that patch starts no pass, so nothing would correct it. When r.statusWrites says "+
			"the pool predates your last status write, read it again through r.APIReader")
}

// The cache may be behind on two counts: its copy of the pool predates the last status
// write, and the pool has been deleted since (here its finalizer is taken off by hand).
// Read again from the API server, it is not found: it is gone, as when the cache says so,
// and the pass has nothing left to do.
func TestAStaleCopyOfADeletedPoolIsNoError(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	pool := createPool(t, g, unmanagedPool(newNodePool(uniqueName("stale-deleted"), sampleLabels)))
	cache := &poolCacheBehind{Client: env.Client()}
	r := newReconciler(cache)
	runPass(g, r, pool, "the first pass")
	stale := latestPool(g, pool)

	// A spec change, and the pass that observes it patches the status again.
	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) { spec.Labels = map[string]string{"pool.test/a": "1"} })
	runPass(g, r, pool, "the pass after the spec change")
	g.Expect(latestPool(g, pool).Status.ObservedGeneration).To(Equal(pool.Generation),
		"the observedGeneration the status patch of the pass after the spec change wrote")

	// The cache still shows the pool as it was before that patch, and the pool is gone.
	cache.pool = stale
	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed(), "deleting the pool")
	patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
	g.Expect(env.Client().Patch(ctx, pool, patch)).To(Succeed(), "taking the finalizer off the deleted pool")
	runPass(g, r, pool, "the pass that reads a stale copy of a pool deleted since: read again through "+
		"r.APIReader, it is not found, which means it is gone (as NotFound from the cache does), not that the "+
		"pass failed")
}

// everyPass names the other cause of an unexpected event in the tests of the Warning
// event (task 5): a pass that sends one every time it runs, a wrong version of task 6,
// fails them before task 6's own tests run.
const everyPass = "or an event is sent on every pass, where task 6 sends one only for what a pass changed (nodeChange)"

// poolCacheBehind is a client whose cache, once pool is set, shows that copy of the pool,
// as one that has not seen the writes after it yet.
type poolCacheBehind struct {
	client.Client
	pool *nodesv1.NodePool
}

func (c *poolCacheBehind) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if p, ok := obj.(*nodesv1.NodePool); ok && c.pool != nil && key.Name == c.pool.Name {
		c.pool.DeepCopyInto(p)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}
