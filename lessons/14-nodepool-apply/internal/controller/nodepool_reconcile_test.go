package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/14-nodepool-apply/api/nodes/v1"
)

// The labels and taint of the example NodePool (config/samples).
var (
	sampleLabels = map[string]string{"node-pool.workshop.dev/master": "8", "node-pool.workshop.dev/test": "2"}
	sampleTaint  = noSchedule("node-pool.workshop.dev", "master")
)

func TestNodePoolIsClusterScoped(t *testing.T) {
	g := NewWithT(t)
	namespaced, err := env.Client().IsObjectNamespaced(&nodesv1.NodePool{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(namespaced).To(BeFalse(), "NodePool should be cluster-scoped, like the nodes it groups: "+
		"an OwnerReference from a cluster-scoped RuntimeClass to a namespaced owner is never honoured")
}

// A request for a pool that is gone (deleted, or never there) ends the pass: a pass that
// returned NotFound would be retried, and logged as an error, for ever.
func TestAPassForAPoolThatIsGoneIsNoError(t *testing.T) {
	g := NewWithT(t)
	gone := &nodesv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: uniqueName("gone")}}
	runPass(g, newReconciler(env.Client()), gone, "a pool that is gone is no error: its pass is done (NotFound)")
}

func TestNodePoolGivesItsMembersItsLabelsAndTaints(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("sample")
	foreignTaint := corev1.Taint{Key: "team", Value: "blue", Effect: corev1.TaintEffectNoExecute}
	member := createTestNode(t, g, name+"-member", map[string]string{poolMemberLabel(name): "", "team": "blue"}, foreignTaint)
	outsider := createTestNode(t, g, name+"-outsider", map[string]string{"team": "blue"})
	createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))

	g.Eventually(func(g Gomega) {
		got := latestNode(g, member)
		g.Expect(got.Labels).To(Equal(map[string]string{
			poolMemberLabel(name): "", "team": "blue",
			"node-pool.workshop.dev/master": "8", "node-pool.workshop.dev/test": "2",
		}), "the member should carry the pool's labels next to its own")
		g.Expect(got.Spec.Taints).To(Equal([]corev1.Taint{foreignTaint, sampleTaint}),
			"the member should carry the pool's taint next to its own")
	}).Should(Succeed())

	// One pass handles every node of a pool: by now it has been through the outsider too.
	got := latestNode(g, outsider)
	g.Expect(got.Labels).To(Equal(map[string]string{"team": "blue"}), "a node outside the pool gets nothing")
	g.Expect(got.Spec.Taints).To(BeEmpty(), "a node outside the pool gets nothing")
	g.Expect(got.Annotations).NotTo(HaveKey(poolRecordAnnotation(name)))
}

// The example's update: master 8 → 10, test=2 removed from the spec.
func TestNodePoolSpecChangeRemovesWhatItNoLongerLists(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("update")
	member := createMember(t, g, name)
	pool := createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))
	g.Eventually(func(g Gomega) {
		g.Expect(latestNode(g, member).Labels).To(HaveKeyWithValue("node-pool.workshop.dev/test", "2"))
	}).Should(Succeed())
	// Someone else labels and taints the member meanwhile.
	zone := "a"
	labelNode(g, member, "zone", &zone)
	maintenance := corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute}
	node := latestNode(g, member)
	node.Spec.Taints = append(node.Spec.Taints, maintenance)
	g.Expect(env.Client().Update(env.Context(), node)).To(Succeed())

	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) {
		spec.Labels = map[string]string{"node-pool.workshop.dev/master": "10"}
		spec.Taints = []corev1.Taint{noSchedule("node-pool.workshop.dev", "web")}
	})

	g.Eventually(func(g Gomega) {
		got := latestNode(g, member)
		g.Expect(got.Labels).To(Equal(map[string]string{
			poolMemberLabel(name): "", "zone": "a", "node-pool.workshop.dev/master": "10",
		}), "test=2 should be gone, master should be 10, and someone else's zone label should stay")
		g.Expect(got.Spec.Taints).To(ConsistOf(noSchedule("node-pool.workshop.dev", "web"), maintenance),
			"the pool's taint should take its new value; someone else's taint should stay")
	}).Should(Succeed())
}

// Someone else (an admin, an autoscaler) labels and taints the pool's nodes while the
// pool's spec keeps changing. Every write of the controller and of that someone races
// the other; in the end, nothing that someone added may be missing.
func TestNodePoolConflictStormLosesNobodysEdits(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("storm")
	nodes := createMembers(t, g, name, 2)
	pool := createPool(t, g, newNodePool(name, map[string]string{"pool.test/a": "0"}, noSchedule("pool.test/t", "0")))

	const edits = 12
	done := make(chan error, 1)
	go func() {
		// Each edit reads the node, changes it and writes it back with its
		// resourceVersion, again on a conflict, as a careful client does.
		backoff := wait.Backoff{Steps: 50, Duration: 5 * time.Millisecond, Factor: 1.2, Jitter: 0.5}
		for i := range edits {
			for _, node := range nodes {
				err := retry.RetryOnConflict(backoff, func() error {
					var n corev1.Node
					if err := env.Client().Get(ctx, client.ObjectKeyFromObject(node), &n); err != nil {
						return err
					}
					n.Labels[fmt.Sprintf("storm.test/l%d", i)] = "x"
					n.Spec.Taints = append(n.Spec.Taints, noSchedule(fmt.Sprintf("storm.test/t%d", i), "x"))
					return env.Client().Update(ctx, &n)
				})
				if err != nil {
					done <- fmt.Errorf("edit %d of node %s: %w", i, node.Name, err)
					return
				}
			}
		}
		done <- nil
	}()
	for i := range 8 {
		setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) {
			spec.Labels = map[string]string{"pool.test/a": fmt.Sprint(i + 1)}
			if i%2 == 0 {
				spec.Labels["pool.test/b"] = "x"
			}
			spec.Taints = []corev1.Taint{noSchedule("pool.test/t", fmt.Sprint(i+1))}
		})
		time.Sleep(20 * time.Millisecond)
	}
	g.Expect(<-done).To(Succeed(), "the test's own edits should get through")

	everything := func(g Gomega) {
		for _, node := range nodes {
			got := latestNode(g, node)
			for i := range edits {
				g.Expect(got.Labels).To(HaveKeyWithValue(fmt.Sprintf("storm.test/l%d", i), "x"),
					"node %s lost someone else's label", node.Name)
				g.Expect(got.Spec.Taints).To(ContainElement(noSchedule(fmt.Sprintf("storm.test/t%d", i), "x")),
					"node %s lost someone else's taint: was a patch of the whole taint list sent without "+
						"the optimistic lock?", node.Name)
			}
			g.Expect(got.Labels).To(HaveKeyWithValue("pool.test/a", "8"), "node %s: the pool's last label value", node.Name)
			g.Expect(got.Labels).NotTo(HaveKey("pool.test/b"), "node %s: the pool's last spec does not list pool.test/b", node.Name)
			g.Expect(got.Spec.Taints).To(ContainElement(noSchedule("pool.test/t", "8")), "node %s: the pool's last taint", node.Name)
			g.Expect(got.Spec.Taints).To(HaveLen(edits+1), "node %s: the test's taints and the pool's one", node.Name)
		}
	}
	g.Eventually(everything).Should(Succeed())
	g.Consistently(everything, time.Second).Should(Succeed())
}

// One pass, driven by hand, patches each member that needs it once, and nothing else.
func TestNodePoolPatchesOnlyTheNodesThatNeedIt(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("count")
	var members []string
	for _, node := range createMembers(t, g, name, 3) {
		members = append(members, "Node/"+node.Name)
	}
	for i := range 2 {
		createTestNode(t, g, fmt.Sprintf("%s-outsider-%d", name, i), map[string]string{"team": "blue"})
	}
	pool := createPool(t, g, unmanagedPool(newNodePool(name, sampleLabels, sampleTaint)))
	writes := &writeLog{Client: env.Client()}
	r := newReconciler(writes)
	// The nodes a pass wrote to, each at most once by patch and once by apply (the labels
	// are applied from lesson 14 on).
	nodePatches := func() []string {
		notNode := func(w string) bool { return !strings.HasPrefix(w, "Node/") }
		patches := slices.DeleteFunc(writes.take(), notNode)
		applies := slices.DeleteFunc(writes.takeApplies(), notNode)
		g.ExpectWithOffset(1, patches).To(HaveLen(sets.New(patches...).Len()), "a node patched twice in one pass")
		g.ExpectWithOffset(1, applies).To(HaveLen(sets.New(applies...).Len()), "a node applied twice in one pass")
		return sets.List(sets.New(append(patches, applies...)...))
	}

	runPass(g, r, pool)
	g.Expect(nodePatches()).To(ConsistOf(members), "the first pass should patch each member once, and no other node")

	runPass(g, r, pool)
	g.Expect(nodePatches()).To(BeEmpty(), "a second pass finds every member as it should be")

	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) {
		spec.Labels = map[string]string{"node-pool.workshop.dev/master": "10"}
	})
	runPass(g, r, pool)
	g.Expect(nodePatches()).To(ConsistOf(members), "a spec change should patch each member once, and no other node")
}

// A spec change on a pool of hundreds of members must reach them all in about the time
// of a few patches, not hundreds: the pass patches several nodes at once, and never
// more than maxParallelNodePatches.
func TestAPassPatchesSeveralNodesAtOnce(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("parallel")
	const members = 24
	createMembers(t, g, name, members)
	pool := createPool(t, g, unmanagedPool(newNodePool(name, sampleLabels, sampleTaint)))
	slow := &slowNodePatches{Client: env.Client(), delay: 50 * time.Millisecond}
	r := newReconciler(slow)

	runPass(g, r, pool)
	g.Expect(slow.updates.Load()).To(BeZero(), "the pass wrote nodes with a full Update, which sends the whole node "+
		"as it was read and fails on every change someone made since: patch a node (client.MergeFromWithOptions), "+
		"sending only what the pool changes")
	g.Expect(slow.patches.Load()).To(BeEquivalentTo(members), "one patch per member")
	g.Expect(slow.most.Load()).To(BeNumerically(">", 1),
		"the pass should patch several nodes at once: one after another, %d patches of 50 ms take over a second", members)
	g.Expect(slow.most.Load()).To(BeNumerically("<=", maxParallelNodePatches), "and never more than maxParallelNodePatches")
}

// slowNodePatches is a client whose node patches each take delay longer, as on an API
// server far away. It counts them, and the most that were under way at once.
type slowNodePatches struct {
	client.Client
	delay                           time.Duration
	patches, running, most, updates atomic.Int64
}

func (s *slowNodePatches) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if _, ok := obj.(*corev1.Node); ok {
		s.updates.Add(1)
	}
	return s.Client.Update(ctx, obj, opts...)
}

func (s *slowNodePatches) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if _, ok := obj.(*corev1.Node); !ok {
		return s.Client.Patch(ctx, obj, patch, opts...)
	}
	s.patches.Add(1)
	now := s.running.Add(1)
	defer s.running.Add(-1)
	for most := s.most.Load(); now > most && !s.most.CompareAndSwap(most, now); most = s.most.Load() {
	}
	time.Sleep(s.delay)
	return s.Client.Patch(ctx, obj, patch, opts...)
}

func TestTheAPIServerRejectsBadNodePools(t *testing.T) {
	long := "a123456789b123456789c123456789d123456789e123456789f123456789g123"
	tests := []struct {
		name     string
		metaName string
		spec     map[string]any
		message  string
	}{
		{"a name too long for a label", long, nil, "a NodePool's name is the name part of the label node-role.kubernetes.io/<name>"},
		{"a malformed label key", "", map[string]any{"labels": map[string]any{"has space": "x"}}, "every key must be a label key"},
		{"a membership label", "", map[string]any{"labels": map[string]any{"node-role.kubernetes.io/other": ""}},
			"a NodePool cannot set them"},
		{"an unknown taint effect", "", map[string]any{"taints": []any{map[string]any{"key": "k", "effect": "Never"}}},
			"every effect must be NoSchedule, PreferNoSchedule or NoExecute"},
		{"a taint without an effect", "", map[string]any{"taints": []any{map[string]any{"key": "k"}}},
			"spec.taints[0].effect: Required value"},
		{"the same taint twice", "", map[string]any{"taints": []any{
			map[string]any{"key": "k", "value": "1", "effect": "NoSchedule"},
			map[string]any{"key": "k", "value": "2", "effect": "NoSchedule"},
		}}, "Duplicate value"},
		{"a handler that is not a DNS label", "", map[string]any{"handler": "Kata_Containers"}, "spec.handler in body should match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			name := tt.metaName
			if name == "" {
				name = uniqueName("bad")
			}
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": nodesv1.GroupVersion.String(),
				"kind":       "NodePool",
				"metadata":   map[string]any{"name": name},
			}}
			if tt.spec != nil {
				obj.Object["spec"] = tt.spec
			}
			err := env.Client().Create(env.Context(), obj)
			g.Expect(err).To(MatchError(ContainSubstring(tt.message)))
		})
	}
}

func TestTheAPIServerDefaultsTheHandler(t *testing.T) {
	g := NewWithT(t)
	pool := createPool(t, g, &nodesv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: uniqueName("defaults")}})
	g.Expect(pool.Spec.Handler).To(Equal("runc"), "a missing spec.handler should default to runc")
}

func TestNodePoolIdlePassWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("idle")
	members := []*corev1.Node{
		createTestNode(t, g, name+"-a", map[string]string{poolMemberLabel(name): ""}),
		createTestNode(t, g, name+"-b", map[string]string{poolMemberLabel(name): "", "team": "blue"}),
	}
	pool := createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))

	// A reconciler of its own, reading the manager's cache, logs the writes of one
	// pass only, once the cache shows the running controller's work.
	cache := env.Manager().GetClient()
	writes := &writeLog{Client: cache}
	r := newReconciler(writes)
	g.Eventually(func(g Gomega) {
		for _, member := range members {
			var cached corev1.Node
			g.Expect(cache.Get(ctx, client.ObjectKeyFromObject(member), &cached)).To(Succeed(), "reading %s from the cache", member.Name)
			g.Expect(cached.Labels).To(HaveKeyWithValue("node-pool.workshop.dev/test", "2"),
				"the running manager should give member %s the pool's labels", member.Name)
			g.Expect(cached.Spec.Taints).To(ContainElement(sampleTaint), "the running manager should give member %s the pool's taint", member.Name)
		}
		var rc nodev1.RuntimeClass
		g.Expect(cache.Get(ctx, client.ObjectKey{Name: nodesv1.RuntimeClassPrefix + name}, &rc)).To(Succeed(),
			"the running manager should create the pool's RuntimeClass")
	}).Should(Succeed())
	recorder := events.NewFakeRecorder(100)
	r.Recorder = recorder
	// A pass by hand, on what the API server holds, tells a wrong count at once, where a
	// wait for the running controller's count would run out first.
	_, err := newReconciler(env.Client()).Reconcile(ctx, requestFor(pool))
	g.Expect(err).NotTo(HaveOccurred(), "a pass on the pool's members should succeed")
	g.Expect(latestPool(g, pool).Status.NodeCount).To(BeEquivalentTo(2),
		"status.nodeCount should count the 2 members: each pass counts from zero, not on from the count it read")
	// The running controller's work includes the pool's status. At least 2, not exactly:
	// a pass that counts on from the count it read goes past 2, and the passes below then
	// fail on their status patch, instead of this wait running out.
	g.Eventually(func(g Gomega) {
		var cached nodesv1.NodePool
		g.Expect(cache.Get(ctx, client.ObjectKeyFromObject(pool), &cached)).To(Succeed(), "reading the pool from the cache")
		g.Expect(cached.Status.NodeCount).To(BeNumerically(">=", 2), "status.nodeCount should count the 2 members")
		g.Expect(cached.Status.ObservedGeneration).To(Equal(cached.Generation),
			"status.observedGeneration should say that a pass succeeded on the pool's spec")
	}).Should(Succeed())

	for pass := range 3 {
		result, err := r.Reconcile(ctx, requestFor(pool))
		g.Expect(err).NotTo(HaveOccurred(), "pass %d had nothing to do, and should succeed", pass+1)
		g.Expect(result).To(Equal(ctrl.Result{}), "a pass with nothing to do should not requeue")
		// Every request counts, an empty patch too: the API server drops it without a new
		// resourceVersion, so nothing but the request log shows it.
		g.Expect(append(writes.take(), writes.takeApplies()...)).To(BeEmpty(), "pass %d had nothing to do and should "+
			"write nothing, not even a node or a status it found unchanged: no node patch, no RuntimeClass write, "+
			"no status patch (a status that differs on every pass? each pass counts from zero, not on from the count it read)",
			pass+1)
		g.Expect(takeEvents(recorder)).To(BeEmpty(), "pass %d changed nothing and should emit no event", pass+1)
	}
}
