package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/flowcontrol"
	testclock "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The tests in this file call Reconcile themselves on MyDaemonSets the running manager
// does not see (unmanaged), and play the kubelet between the passes: what one pass does
// with the plan, and what a stale cache cannot make it do twice.

// isTerminal reports whether controller-runtime would give up on err: it retries no error
// that wraps a TerminalError, even one joined with errors a retry could fix.
func isTerminal(err error) bool {
	return errors.Is(err, reconcile.TerminalError(nil))
}

// A name taken on one node costs that node its pod, and no other: the nodes after it in
// the slow-start order still get theirs, and the pass reports the node it skipped as an
// error only a change of the spec (a new name) can fix.
func TestATakenPodNameSkipsOnlyItsNode(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	c := createNode(g, ns, "c", true, nil)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	squatter := createStrayPod(g, ns, podName(mds.Name, a.Name))
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme(), APIReader: env.Client()}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(b, c)),
		"the nodes after the one whose pod name is taken should get their pods in the same pass")
	g.Expect(err).To(MatchError(And(ContainSubstring(a.Name), ContainSubstring(squatter.Name))),
		"the pass should name the node it skipped and the pod that holds the name")
	g.Expect(isTerminal(err)).To(BeTrue(), "only a new name can fix a taken one: nothing to retry; got %v", err)
}

// failingCreates is a client whose creates of the named pods fail as an overloaded API
// server's would: an error a retry fixes.
type failingCreates struct {
	client.Client
	names []string
}

func (f *failingCreates) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	for _, name := range f.names {
		if obj.GetName() == name {
			return apierrors.NewServiceUnavailable("the test refuses this create")
		}
	}
	return f.Client.Create(ctx, obj, opts...)
}

// A taken name must not hide an error a retry can fix: controller-runtime retries no
// error that wraps a terminal one, so the node whose create failed would wait for an
// unrelated event.
func TestATakenNameDoesNotStopTheRetryOfOtherErrors(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	c := createNode(g, ns, "c", true, nil)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	// a gets its pod in the first batch of the slow start; b and c share the second.
	squatter := createStrayPod(g, ns, podName(mds.Name, b.Name))
	c1 := &failingCreates{Client: env.Client(), names: []string{podName(mds.Name, c.Name)}}
	r := &MyDaemonSetReconciler{Client: c1, Scheme: env.Scheme(), APIReader: env.Client()}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).To(MatchError(ContainSubstring("the test refuses this create")))
	g.Expect(isTerminal(err)).To(BeFalse(), "the failed create of %s must be retried; got %v", c.Name, err)
	g.Expect(err).To(MatchError(ContainSubstring(squatter.Name)), "the taken name is still reported")
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(a)))
}

// Passes driven by hand, with the test playing the kubelet in between, one step at a
// time: after every pass at most one node is without a ready pod.
func TestAnImageChangeReplacesOnePodAtATime(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	nodes := []*corev1.Node{
		createNode(g, ns, "a", true, nil), createNode(g, ns, "b", true, nil), createNode(g, ns, "c", true, nil),
	}
	mds := create(g, unmanaged(newMyDaemonSet(ns, "roll", nil)))
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme()}

	g.Expect(runPass(g, r, mds)).To(Equal(ctrl.Result{}))
	pods := daemonPodsOf(g, mds)
	g.Expect(nodeNames(pods)).To(Equal(names(nodes...)))
	for _, pod := range pods {
		env.MarkReady(g, ns, pod.Name)
	}

	setImage(g, mds, newPauseImage)
	var passes, deletes int
	for {
		g.Expect(passes).To(BeNumerically("<", 30), "the rollout should be done after a few passes per node")
		g.Expect(runPass(g, r, mds)).To(Equal(ctrl.Result{}))
		passes++
		pods := daemonPodsOf(g, mds)
		ready, updated := 0, 0
		for _, pod := range pods {
			if podcontrol.IsPodReady(&pod) {
				ready++
			}
			if podImage(&pod) == newPauseImage {
				updated++
			}
		}
		g.Expect(len(nodes)-ready).To(BeNumerically("<=", maxUnavailable),
			"after pass %d: %d of %d nodes have a ready pod; the rolling budget lets at most %d node go without",
			passes, ready, len(nodes), maxUnavailable)
		if ready == len(nodes) && updated == len(nodes) {
			break
		}
		// Play the kubelet, one step: finish the deletions under way, or else make one
		// new pod ready.
		if terminating := terminatingPods(g, ns); terminating > 0 {
			deletes += terminating
			removeTerminatingPods(g, ns)
			continue
		}
		for _, pod := range pods {
			if !podcontrol.IsPodReady(&pod) {
				env.MarkReady(g, ns, pod.Name)
				break
			}
		}
	}
	g.Expect(deletes).To(Equal(len(nodes)), "each old pod should be deleted once")
	for _, pod := range daemonPodsOf(g, mds) {
		g.Expect(pod.Name).To(Equal(podName(mds.Name, pod.Spec.NodeName)), "the new pod takes the old one's name")
	}
}

// Outdated pods that are not ready cost no availability, so the rolling budget lets
// them all go at once; the burst limit still holds. An image change that follows a
// broken one, on more nodes than maxBurst, deletes maxBurst pods in one pass, and the
// pod events start the next pass for the rest.
func TestAnImageChangeDeletesAtMostABurstOfPodsThatAreNotReady(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "burst", nil)))
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme()}
	// The pods are made here rather than by passes: a pass creates at most maxBurst. A
	// node keeps its pod whether Ready or not, so the nodes need no kubelet's status.
	const nodes = maxBurst + 20
	_, err := podcontrol.InParallel(nodes, func(i int) error {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%04d", ns, i), Labels: map[string]string{testNodeLabel: ns},
		}}
		if err := env.Client().Create(ctx, node); err != nil {
			return err
		}
		pod, err := r.newDaemonPod(mds, node)
		if err != nil {
			return err
		}
		return env.Client().Create(ctx, pod)
	})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		_ = env.Client().DeleteAllOf(context.Background(), &corev1.Node{}, client.MatchingLabels{testNodeLabel: ns})
	})

	setImage(g, mds, newPauseImage)
	runPass(g, r, mds)
	g.Expect(terminatingPods(g, ns)).To(Equal(maxBurst),
		"pods deleted by one pass after the image change on %d nodes whose pods are not ready: "+
			"maxBurst caps the replacements as it caps the removals", nodes)
}

// A MyDaemonSet deleted and created again under the same name wants the names of the
// pods of its earlier self, which the garbage collector has not deleted yet. That is a
// wait, not a conflict: the pass retries, and says nothing about renaming.
func TestPodsOfAnEarlierMyDaemonSetOfTheSameNameAreWaitedFor(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	// envtest runs no garbage collector: the pod of the earlier MyDaemonSet stays.
	isController := true
	old := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(mds.Name, a.Name),
			Labels: map[string]string{MyDaemonSetLabel: mds.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: appsv1.GroupVersion.String(), Kind: "MyDaemonSet",
				Name: mds.Name, UID: k8stypes.UID("00000000-0000-0000-0000-000000000001"), Controller: &isController}}},
		Spec: corev1.PodSpec{NodeName: a.Name, Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client().Create(ctx, old)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme(), APIReader: env.Client()}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).To(HaveOccurred(), "the pass should retry until the old pod is gone")
	g.Expect(isTerminal(err)).To(BeFalse(), "the garbage collector frees the name: retry; got %v", err)
	g.Expect(err).NotTo(MatchError(ContainSubstring("rename")), "renaming would not help")
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(b)), "the other node gets its pod")

	g.Expect(env.Client().Delete(ctx, old)).To(Succeed())
	removeTerminatingPods(g, ns)
	g.Eventually(func(g Gomega) {
		_, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(a, b)))
	}).Should(Succeed(), "once the old pod is gone, its node gets a pod of the new MyDaemonSet")
}

// The cache is frozen before the first pass: every later pass sees no pods at all. The
// fixed pod names would make a second create fail anyway; the expectations save the
// requests.
func TestAStaleCacheWastesNoCreates(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	for _, name := range []string{"a", "b", "c"} {
		createNode(g, ns, name, true, nil)
	}
	mds := create(g, unmanaged(newMyDaemonSet(ns, "stale", nil)))
	var writes testenv.WriteCounter
	r := &MyDaemonSetReconciler{Client: writes.Wrap(&testenv.FrozenPodList{Client: env.Client()}), Scheme: env.Scheme()}

	runPass(g, r, mds)
	g.Expect(daemonPodsOf(g, mds)).To(HaveLen(3))
	afterFirst := writes.Count()
	for pass := range 2 {
		runPass(g, r, mds, "pass %d", pass+2)
	}
	g.Expect(writes.Count()-afterFirst).To(BeZero(),
		"passes that cannot see their own creates should wait for the cache, not create again")
	g.Expect(daemonPodsOf(g, mds)).To(HaveLen(3))
}

// A MyDaemonSet deleted and created again under the same name is another MyDaemonSet,
// whose pods have the same names. When both events come between two passes, no pass
// sees the first one gone and nothing forgets what it expected. The new one must not
// wait for those pods: here the cache never shows them (it is frozen), as with pods the
// garbage collector took before the cache saw them.
func TestAMyDaemonSetCreatedAgainDoesNotWaitForThePodsOfTheFirst(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	node := createNode(g, ns, "a", true, nil)
	r := &MyDaemonSetReconciler{Client: &testenv.FrozenPodList{Client: env.Client()}, Scheme: env.Scheme()}
	first := create(g, unmanaged(newMyDaemonSet(ns, "again", nil)))
	runPass(g, r, first, "the first MyDaemonSet's pass")
	// envtest runs no garbage collector and no kubelet: the test deletes the pod, as they would.
	for _, pod := range daemonPodsOf(g, first) {
		g.Expect(env.Client().Delete(ctx, &pod, client.GracePeriodSeconds(0))).To(Succeed())
	}
	g.Expect(env.Client().Delete(ctx, first)).To(Succeed())

	second := create(g, unmanaged(newMyDaemonSet(ns, "again", nil)))
	result := runPass(g, r, second, "the second MyDaemonSet's pass")
	g.Expect(nodeNames(daemonPodsOf(g, second))).To(Equal(names(node)), "pods of the MyDaemonSet created "+
		"again, after its first pass (it waited %s for the pod of the MyDaemonSet deleted before it: "+
		"expectations must be kept per UID)", result.RequeueAfter)
}

// The reconciler reads pods from a cache that may not show its own deletes yet. Here the
// cache is frozen right after the image change: every pass sees three ready pods of the
// old image. The delete expectations make the later passes wait for the cache (and a
// pass that acted anyway would pick the same pod: planPods walks the nodes in name
// order), so one pod goes, not one per pass.
func TestAStaleCacheNeverSpendsTheRollingBudgetTwice(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	for _, name := range []string{"a", "b", "c"} {
		createNode(g, ns, name, true, nil)
	}
	mds := create(g, unmanaged(newMyDaemonSet(ns, "stale", nil)))
	runPass(g, &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme()}, mds)
	for _, pod := range daemonPodsOf(g, mds) {
		env.MarkReady(g, ns, pod.Name)
	}
	setImage(g, mds, newPauseImage)

	r := &MyDaemonSetReconciler{Client: &testenv.FrozenPodList{Client: env.Client()}, Scheme: env.Scheme()}
	for pass := range 3 {
		runPass(g, r, mds, "pass %d", pass+1)
	}
	g.Expect(terminatingPods(g, ns)).To(Equal(1),
		"passes that cannot see their own delete must not delete another ready pod")
}

// A DaemonSet keeps its pods on a node that goes NotReady: a network blip should not
// restart every daemon of a node. It just places no new pod there.
func TestANotReadyNodeKeepsItsPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme()}

	runPass(g, r, mds)
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b)))

	setNodeReady(g, b, corev1.ConditionUnknown)
	createNode(g, ns, "c", false, nil)
	runPass(g, r, mds)
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b)),
		"node %s went NotReady and keeps its pod; the NotReady node c gets none", b.Name)
	g.Expect(latestMyDaemonSet(g, mds).Status.DesiredNumberScheduled).To(BeEquivalentTo(2),
		"status.desiredNumberScheduled counts a NotReady node that still runs its pod")
}

// markFailed plays the kubelet of a pod that failed.
func markFailed(g Gomega, ns, name string) {
	var pod corev1.Pod
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKey{Namespace: ns, Name: name}, &pod)).To(Succeed())
	pod.Status.Phase = corev1.PodFailed
	g.ExpectWithOffset(1, env.Client().Status().Update(env.Context(), &pod)).To(Succeed())
}

func TestAFinishedPodIsReplaced(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme()}
	runPass(g, r, mds)
	pods := daemonPodsOf(g, mds)
	g.Expect(nodeNames(pods)).To(Equal(names(a)))
	failed := pods[0]
	markFailed(g, ns, failed.Name)

	// The first pass deletes the finished pod, which frees its name; the second creates
	// the replacement. (A finished pod needs no kubelet to go.)
	for range 2 {
		runPass(g, r, mds)
	}
	pods = daemonPodsOf(g, mds)
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).NotTo(Equal(failed.UID), "the Failed pod should be replaced by a new one")
	g.Expect(pods[0].Status.Phase).NotTo(Equal(corev1.PodFailed))
}

// A pod that keeps failing (a kubelet that rejects it, a crashing init) is replaced
// after a growing wait, like the DaemonSet controller's failed pods, not in a hot loop.
func TestAPodThatKeepsFailingIsReplacedWithBackoff(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	node := createNode(g, ns, "a", true, nil)
	mds := create(g, unmanaged(newMyDaemonSet(ns, "agent", nil)))
	clock := testclock.NewFakeClock(time.Now())
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme(), APIReader: env.Client(),
		FailedPodBackoff: flowcontrol.NewFakeBackOff(time.Minute, 10*time.Minute, clock)}
	name := podName(mds.Name, node.Name)
	pass := func() (time.Duration, []corev1.Pod) {
		res := runPass(g, r, mds)
		removeTerminatingPods(g, ns)
		return res.RequeueAfter, daemonPodsOf(g, mds)
	}

	_, pods := pass()
	g.Expect(pods).To(HaveLen(1))
	first := pods[0].UID
	markFailed(g, ns, name)
	_, _ = pass() // The first failure costs nothing: the pod is deleted at once.
	_, pods = pass()
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).NotTo(Equal(first), "the first failed pod is replaced at once")

	second := pods[0].UID
	markFailed(g, ns, name)
	wait, pods := pass()
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).To(Equal(second), "a second failure within the backoff keeps the failed pod")
	g.Expect(wait).To(BeNumerically("~", time.Minute, time.Second), "the pass comes back when the backoff ends")

	clock.Step(wait + time.Second)
	_, _ = pass()
	_, pods = pass()
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).NotTo(Equal(second), "after the backoff the failed pod is replaced")
	g.Expect(pods[0].Status.Phase).NotTo(Equal(corev1.PodFailed))
}

func TestANamespaceBeingDeletedIsNoErrorForMyDaemonSet(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	createNode(g, ns, "a", true, nil)
	// The MyDaemonSet selects the nodes of ns, but lives in a namespace being deleted.
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	env.TerminatingNamespace(g, mds)
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme()}

	result := runPass(g, r, mds, "a namespace being deleted refuses new pods, and takes the MyDaemonSet "+
		"with it: there is nothing to retry")
	g.Expect(result).To(Equal(ctrl.Result{}))
	g.Expect(daemonPodsOf(g, mds)).To(BeEmpty())
}

func terminatingPods(g Gomega, ns string) int {
	var pods corev1.PodList
	g.ExpectWithOffset(1, env.Client().List(env.Context(), &pods, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, pod := range pods.Items {
		if !pod.DeletionTimestamp.IsZero() {
			n++
		}
	}
	return n
}
