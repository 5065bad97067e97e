package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// The Ready condition is the first row of setMyDaemonSetReadyCondition's table that
// applies. Its message says counts or the error, never a time: a pass that finds what the
// last one found sets the same condition, and patchStatus then writes nothing.
func TestTheReadyConditionSaysWhatThePassFound(t *testing.T) {
	counts := func(desired, current, updated, available int32) appsv1.MyDaemonSetStatus {
		return appsv1.MyDaemonSetStatus{DesiredNumberScheduled: desired, CurrentNumberScheduled: current,
			UpdatedNumberScheduled: updated, NumberAvailable: available}
	}
	tests := []struct {
		name    string
		status  appsv1.MyDaemonSetStatus
		passErr error
		want    metav1.ConditionStatus
		reason  string
	}{
		{"the pass failed", counts(3, 3, 1, 2), errors.New("listing nodes: the cache is gone"),
			metav1.ConditionFalse, appsv1.ReasonReconcileError},
		{"a pod runs an old image", counts(3, 3, 1, 2), nil, metav1.ConditionFalse, appsv1.ReasonRollingOut},
		{"a node that should run a pod has none", counts(3, 2, 2, 1), nil, metav1.ConditionFalse, appsv1.ReasonPodsMissing},
		{"a pod is not ready", counts(3, 3, 3, 2), nil, metav1.ConditionFalse, appsv1.ReasonPodsNotReady},
		{"every node runs a ready pod of spec.image", counts(3, 3, 3, 3), nil, metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable},
		{"no node matches", counts(0, 0, 0, 0), nil, metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			mds := &appsv1.MyDaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Generation: 4}, Status: tt.status}
			setMyDaemonSetReadyCondition(mds, tt.passErr)
			ready := meta.FindStatusCondition(mds.Status.Conditions, appsv1.ConditionReady)
			g.Expect(ready).NotTo(BeNil(), "setMyDaemonSetReadyCondition should set the condition %q", appsv1.ConditionReady)
			g.Expect(ready.Status).To(Equal(tt.want), "the Ready condition's status when %s", tt.name)
			g.Expect(ready.Reason).To(Equal(tt.reason), "the Ready condition's reason when %s", tt.name)
			g.Expect(ready.ObservedGeneration).To(BeEquivalentTo(4), "the condition's observedGeneration")
			if tt.passErr != nil {
				g.Expect(ready.Message).To(ContainSubstring(tt.passErr.Error()), "the message says the error")
			} else {
				g.Expect(ready.Message).NotTo(BeEmpty(), "the message says the counts")
			}

			before := mds.Status.DeepCopy()
			setMyDaemonSetReadyCondition(mds, tt.passErr)
			g.Expect(mds.Status.Conditions).To(Equal(before.Conditions),
				"a pass that finds the same counts should leave the condition as it was")
		})
	}
}

// kubectl get shows the counts through the printer columns' JSONPaths, which print
// <none> for a field the object lacks: a count of 0 must be in the object, not left out.
func TestMyDaemonSetStatusHoldsCountsOfZero(t *testing.T) {
	g := NewWithT(t)
	// A MyDaemonSet that matches no node.
	mds := create(g, newMyDaemonSet(env.Namespace(t), "nowhere", map[string]string{"role": "none"}))
	env.ExpectStatusCountsOfZero(g, mds,
		"desiredNumberScheduled", "currentNumberScheduled", "updatedNumberScheduled", "numberAvailable")
}

// The cache shows a write a moment after it is made, and our status patches start no
// pass (GenerationChangedPredicate): a pass may read the MyDaemonSet as it was before the
// last one. When what it finds is what that stale copy says, a comparison with the copy
// finds nothing to write, and nothing corrects the status afterwards.
func TestAPassThatReadsAStaleCopyStillWritesTheStatus(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	createNode(g, ns, "a", true, nil)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	cache := &lateCache{Client: env.Client()}
	r := &MyDaemonSetReconciler{Client: cache, Scheme: env.Scheme(), APIReader: env.Client()}
	pass := func(what string) {
		t.Helper()
		_, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(testenv.ErrorText(err)).To(BeEmpty(), what)
	}
	pass("the pass that creates the pod")
	env.MarkReady(g, ns, daemonPodsOf(g, mds)[0].Name)
	pass("the pass that counts it")
	g.Expect(latestMyDaemonSet(g, mds)).To(haveMyDaemonSetReady(metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable))

	// From here on the cache shows the MyDaemonSet as it is now: 1 of 1 pods available.
	cache.behind = latestMyDaemonSet(g, mds)
	// Someone deletes the pod: the next pass reports it missing and creates its replacement.
	gone := daemonPodsOf(g, mds)[0]
	g.Expect(env.Client().Delete(ctx, &gone)).To(Succeed())
	removeTerminatingPods(g, ns)
	pass("the pass that replaces the pod")
	g.Expect(latestMyDaemonSet(g, mds)).To(haveMyDaemonSetReady(metav1.ConditionFalse, appsv1.ReasonPodsMissing))

	// The replacement becomes ready: the next pass finds 1 of 1, as its stale copy says.
	env.MarkReady(g, ns, daemonPodsOf(g, mds)[0].Name)
	_, err := r.Reconcile(ctx, requestFor(mds))
	if err != nil {
		// The queue would retry this pass; by then the cache has caught up.
		cache.behind = nil
		_, err = r.Reconcile(ctx, requestFor(mds))
	}
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass that finds the replacement ready")
	g.Expect(latestMyDaemonSet(g, mds)).To(haveMyDaemonSetReady(metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable),
		"the Ready condition once the replacement is ready: if it still says PodsMissing, the pass compared equal "+
			"with a stale copy of the MyDaemonSet, which the cache showed as it was before the last status patch, and "+
			"wrote nothing; that patch starts no pass, so nothing would correct it")
}

// lateCache is a client that reads like a cache a moment after a write: while behind is
// set, a Get of that MyDaemonSet returns it as it was then, whatever the API server holds.
type lateCache struct {
	client.Client
	behind *appsv1.MyDaemonSet
}

func (c *lateCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if mds, ok := obj.(*appsv1.MyDaemonSet); ok && c.behind != nil && key == client.ObjectKeyFromObject(c.behind) {
		c.behind.DeepCopyInto(mds)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

// The cache may be behind on two counts: its copy of the MyDaemonSet predates the last
// status patch, and the MyDaemonSet has been deleted since. Read again from the API
// server, it is not found: it is gone, as when the cache says so, and the pass has
// nothing left to do.
func TestAStaleCopyOfADeletedMyDaemonSetIsNoError(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	// No node matches: the pass has no pod to create, only a status to write.
	mds := create(g, unmanaged(newMyDaemonSet(env.Namespace(t), "deleted", map[string]string{"role": "none"})))
	cache := &lateCache{Client: env.Client()}
	r := &MyDaemonSetReconciler{Client: cache, Scheme: env.Scheme(), APIReader: env.Client()}
	runPass(g, r, mds, "the first pass")
	g.Expect(latestMyDaemonSet(g, mds).Status.ObservedGeneration).To(Equal(mds.Generation),
		"the observedGeneration the first pass's status patch wrote")

	// The cache still shows the MyDaemonSet as it was created, before that status patch,
	// and someone deletes it.
	cache.behind = mds
	g.Expect(env.Client().Delete(ctx, mds)).To(Succeed())
	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass that reads a stale copy of a MyDaemonSet deleted "+
		"since: read again through r.APIReader, it is not found, which means it is gone (as NotFound from the "+
		"cache does), not that the pass failed")
}

// A pass that fails on many nodes must still say so: the API server refuses a condition
// whose message exceeds 32 KiB, and a refused status patch leaves the status as the pass
// before wrote it, just when it is wrong.
func TestAPassThatFailsOnManyNodesStillReportsIt(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	for i := range 40 {
		createNode(g, ns, fmt.Sprintf("n%02d", i), true, nil)
	}
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	working := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme(), APIReader: env.Client()}
	_, err := working.Reconcile(ctx, requestFor(mds))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass that creates the 40 pods")
	g.Expect(daemonPodsOf(g, mds)).To(HaveLen(40))

	// No node matches any more, and a policy webhook refuses every delete, each with a
	// long explanation: 40 of them, joined, would make some 45 KiB.
	patch := client.MergeFrom(mds.DeepCopy())
	mds.Spec.NodeSelector["role"] = "none"
	g.Expect(env.Client().Patch(ctx, mds, patch)).To(Succeed())
	broken := &MyDaemonSetReconciler{Client: &testenv.FailingDeletes{Client: env.Client()}, Scheme: env.Scheme(), APIReader: env.Client()}
	_, err = broken.Reconcile(ctx, requestFor(mds))
	testenv.ExpectRefusedDeletesReported(g, err, readyConditionOf(latestMyDaemonSet(g, mds)), 40)
}

// A pass may read a MyDaemonSet from the cache just before someone deletes it (kubectl
// delete --wait=false): its status patch then finds nothing, which is no error.
func TestAStatusPatchOfADeletedMyDaemonSetIsNoError(t *testing.T) {
	g := NewWithT(t)
	mds := create(g, unmanaged(newMyDaemonSet(env.Namespace(t), "deleted", nil)))
	orig := mds.DeepCopy()
	g.Expect(env.Client().Delete(env.Context(), mds)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme(), APIReader: env.Client()}

	err := r.patchStatus(env.Context(), orig, mds, nil)
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(),
		"the status patch of a MyDaemonSet deleted since the pass read it: NotFound means it is gone, not that the pass failed")
}

// The API server drops a patch that changes nothing, so no resourceVersion shows such a
// write; only counting the writes does, of the status and of the pods alike.
func TestMyDaemonSetIdlePassWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	createNode(g, ns, "a", true, nil)
	createNode(g, ns, "b", true, nil)
	mds := create(g, newMyDaemonSet(ns, "idle", nil))

	// A reconciler of its own reads the manager's cache, so that only the writes of its
	// passes are counted.
	cache := env.Manager().GetClient()
	var writes testenv.WriteCounter
	r := &MyDaemonSetReconciler{Client: writes.Wrap(cache), Scheme: env.Scheme()}
	idlePass := func(why string) {
		t.Helper()
		before := writes.Count()
		result, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result).To(Equal(ctrl.Result{}), "a pass with nothing to do should not requeue")
		g.Expect(writes.Count()-before).To(BeZero(), "a pass with nothing to do should write nothing, "+
			"not even an unchanged status (%s): patch only a status that differs from the one the pass read, "+
			"and keep what changes on every pass, such as a time, out of the Ready condition", why)
	}
	settled := func(available int) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			var cached appsv1.MyDaemonSet
			g.Expect(cache.Get(ctx, client.ObjectKeyFromObject(mds), &cached)).To(Succeed())
			g.Expect(cached.Status.CurrentNumberScheduled).To(BeEquivalentTo(2), "status.currentNumberScheduled")
			g.Expect(cached.Status.NumberAvailable).To(BeEquivalentTo(available), "status.numberAvailable")
			g.Expect(cached.Status.ObservedGeneration).To(Equal(cached.Generation), "status.observedGeneration")
			var pods corev1.PodList
			g.Expect(cache.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
			readyPods := 0
			for _, pod := range pods.Items {
				if podcontrol.IsPodReady(&pod) {
					readyPods++
				}
			}
			g.Expect(readyPods).To(Equal(available), "ready pods in the cache")
		}).Should(Succeed())
	}

	settled(0)
	idlePass("2 nodes, 2 pods, none ready")
	for _, pod := range daemonPodsOf(g, mds) {
		env.MarkReady(g, ns, pod.Name)
	}
	settled(2)
	idlePass("2 nodes, 2 ready pods")
}
