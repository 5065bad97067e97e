package controller

import (
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/12-clientgo/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/lessons/12-clientgo/internal/imoocpods"
)

// Passes driven by hand on envtest: a controller of the test's own, whose informers run
// but whose workers do not, calls sync on an ImoocPod the running controller leaves
// alone (unmanaged), and the test reads the result straight from the API server.

func TestOnePassScalesTheWholeDifference(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "batch", 40)))
	c := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: true})

	passSucceeds(g, c, ip, 0, "the pass's error")
	created := len(podsOf(g, ip))
	g.Expect(created).To(Equal(40), "one pass should create all 40 missing pods, not one pod per pass; it created %d", created)

	scaleTo(g, ip, 7)
	passSucceeds(g, c, ip, 40, "the pass's error")
	g.Expect(len(podsOf(g, ip))).To(Equal(7), "one pass should delete all 33 surplus pods, not one pod per pass")
}

// The pod informer of this controller never starts: every pass sees no pods at all, a
// cache that never shows the pass's own creates.
func TestStaleCacheNeverCreatesTooMany(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "stale", 5)))
	c := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: false})

	for i := range 3 {
		passSucceeds(g, c, ip, 0, "the error of pass %d", i+1)
	}
	g.Expect(len(podsOf(g, ip))).To(Equal(5),
		"3 passes over a cache that never shows their creates should leave 5 pods: more means a pass "+
			"created again (expectations), fewer means the first pass did not create the whole difference")
}

func TestIdlePassWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "idle", 3)))
	var writes atomic.Int64
	c := newTestController(t, countWrites(env.Config(), &writes), testControllerOptions{namespace: ip.Namespace, startPods: true})
	passSucceeds(g, c, ip, 0, "the pass that creates the pods")
	passSucceeds(g, c, ip, 3, "the pass that counts them")

	idlePass := func(why string) {
		t.Helper()
		before := writes.Load()
		passSucceeds(g, c, ip, 3, "the pass's error")
		g.Expect(writes.Load()-before).To(BeZero(), "a pass with nothing to do should write nothing, "+
			"not even the status it found unchanged: "+why)
	}
	// pass waits for the cache to show the ImoocPod's generation, not its status:
	// wait for the status too, as the event of the last patch would.
	g.Eventually(func(g Gomega) {
		g.Expect(cachedImoocPod(g, c, ip).Status.Replicas).To(BeEquivalentTo(3), "the cached status.replicas")
	}).Should(Succeed())
	idlePass("3 pods, none ready")

	for _, pod := range podsOf(g, ip) {
		env.MarkReady(g, ip.Namespace, pod.Name)
	}
	waitForReadyInCache(g, c, ip.Namespace, 3)
	passSucceeds(g, c, ip, 3, "the pass that counts the ready pods")
	g.Eventually(func(g Gomega) {
		g.Expect(cachedImoocPod(g, c, ip).Status.ReadyReplicas).To(BeEquivalentTo(3), "the cached status.readyReplicas")
	}).Should(Succeed())
	idlePass("3 pods, all ready")
}

func TestReadyConditionSaysWhatAPassFound(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "passes", 3)))
	c := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: true})

	passSucceeds(g, c, ip, 0, "the first pass")
	got := latest(g, ip)
	g.Expect(got.Status.Replicas).To(BeZero(), "the first pass found no pods; it created them")
	g.Expect(readyAs(got)).To(Equal("False "+appsv1.ReasonScalingUp), "the Ready condition")
	g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(1), "status.observedGeneration after a successful pass")

	passSucceeds(g, c, ip, 3, "the second pass")
	got = latest(g, ip)
	g.Expect(got.Status.Replicas).To(BeEquivalentTo(3), "the second pass found the pods the first created")
	g.Expect(readyAs(got)).To(Equal("False "+appsv1.ReasonPodsNotReady), "the Ready condition")

	scaleTo(g, ip, 1)
	passSucceeds(g, c, ip, 3, "the pass after the scale-down")
	got = latest(g, ip)
	g.Expect(readyAs(got)).To(Equal("False "+appsv1.ReasonScalingDown), "the Ready condition")
	g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(2), "status.observedGeneration after the spec changed")
}

// The informer shows a write a moment after it is made, and our status patches start no
// pass (updateImoocPod): a pass may read the ImoocPod as it was before the last one. When
// what it finds is what that stale copy says, a comparison with the copy finds nothing to
// write, and nothing corrects the status afterwards.
func TestAPassThatReadsAStaleCopyStillWritesTheStatus(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "stale-copy", 2)))
	c := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: true})
	passSucceeds(g, c, ip, 0, "the pass that creates the pods")
	for _, pod := range podsOf(g, ip) {
		env.MarkReady(g, ip.Namespace, pod.Name)
	}
	waitForReadyInCache(g, c, ip.Namespace, 2)
	passSucceeds(g, c, ip, 2, "the pass that counts them")
	g.Expect(readyAs(latest(g, ip))).To(Equal("True "+appsv1.ReasonAllReplicasReady), "the Ready condition")

	// From here on the ImoocPod's cache shows it as it is now: 2 of 2 ready.
	current := c.imoocPodLister
	c.imoocPodLister = listerOf(latest(g, ip))
	// Someone deletes a pod: the next pass reports 1 of 2 and creates the replacement.
	gone := podsOf(g, ip)[0]
	g.Expect(env.Client().Delete(env.Context(), &gone)).To(Succeed())
	g.Eventually(func(g Gomega) {
		listed, err := c.podLister.Pods(ip.Namespace).List(labels.Everything())
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(listed).To(HaveLen(1), "pods in the test controller's cache")
	}).Should(Succeed())
	passSucceeds(g, c, ip, 1, "the pass that replaces the pod")
	g.Expect(readyAs(latest(g, ip))).To(Equal("False "+appsv1.ReasonScalingUp), "the Ready condition of 1 pod of 2")

	// The replacement becomes ready: the next pass finds 2 of 2, as its stale copy says.
	for _, pod := range podsOf(g, ip) {
		env.MarkReady(g, ip.Namespace, pod.Name)
	}
	waitForReadyInCache(g, c, ip.Namespace, 2)
	err := pass(g, c, ip, 2)
	if err != nil {
		// The queue would retry this pass; by then the cache has caught up.
		c.imoocPodLister = current
		err = pass(g, c, ip, 2)
	}
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass that finds the replacement ready")
	g.Expect(readyAs(latest(g, ip))).To(Equal("True "+appsv1.ReasonAllReplicasReady), "the Ready condition once "+
		"the replacement is ready: if it still says ScalingUp, the pass compared equal with a stale copy of the "+
		"ImoocPod, which the informer showed as it was before the last status patch, and wrote nothing; that patch "+
		"starts no pass, so nothing would correct it. When c.statusWrites says the ImoocPod predates your last status "+
		"write, read it again through c.imoocPods.Get")
}

// listerOf returns a lister whose cache holds the ImoocPods given, as they are now, and
// never anything else: an informer that has stopped showing their writes.
func listerOf(imoocPods ...*appsv1.ImoocPod) imoocpods.Lister {
	informer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &appsv1.ImoocPod{}, 0, cache.Indexers{})
	for _, ip := range imoocPods {
		if err := informer.GetIndexer().Add(ip); err != nil {
			panic(err)
		}
	}
	return imoocpods.NewLister(informer)
}

// cachedImoocPod reads ip as the cache of c shows it.
func cachedImoocPod(g Gomega, c *Controller, ip *appsv1.ImoocPod) *appsv1.ImoocPod {
	cached, err := c.imoocPodLister.Get(ip.Namespace, ip.Name)
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred(), "the test controller's cache should show ImoocPod %s", ip.Name)
	return cached
}

// waitForReadyInCache waits until the pod cache of c shows n ready pods in namespace ns.
func waitForReadyInCache(g Gomega, c *Controller, ns string, n int) {
	g.EventuallyWithOffset(1, func(g Gomega) {
		listed, err := c.podLister.Pods(ns).List(labels.Everything())
		g.Expect(err).NotTo(HaveOccurred())
		var ready int
		for _, pod := range listed {
			if podcontrol.IsPodReady(pod) {
				ready++
			}
		}
		g.Expect(ready).To(Equal(n), "ready pods in the test controller's cache")
	}).Should(Succeed())
}

func TestAFailedPassReportsTheErrorAndDoesNotObserveTheSpec(t *testing.T) {
	g := NewWithT(t)
	const quota = "exceeded quota: pods"
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "failing", 2)))
	broken := newTestController(t, refusePodCreates(env.Config(), quota), testControllerOptions{namespace: ip.Namespace, startPods: true})
	working := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: true})

	err := pass(g, broken, ip, 0)
	g.Expect(testenv.ErrorText(err)).To(ContainSubstring(quota), "a pass whose creates fail should return their error, to be retried")
	got := latest(g, ip)
	g.Expect(readyAs(got)).To(Equal("False "+appsv1.ReasonReconcileError), "the Ready condition")
	g.Expect(readyCondition(got).Message).To(ContainSubstring(quota), "the Ready condition should say what failed")
	g.Expect(got.Status.ObservedGeneration).To(BeZero(), "a failed pass has not acted on the spec")

	passSucceeds(g, working, ip, 0, "the pass of the working controller")
	g.Expect(latest(g, ip).Status.ObservedGeneration).To(BeEquivalentTo(1), "status.observedGeneration once a pass has succeeded")
}

// A pass that fails on many pods must still say so: the API server refuses a condition
// whose message exceeds 32 KiB, and a refused status patch leaves the status as the pass
// before wrote it, just when it is wrong.
func TestAPassThatFailsOnManyPodsStillReportsIt(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "many-failures", 40)))
	working := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: true})
	broken := newTestController(t, refusePodDeletes(env.Config()), testControllerOptions{namespace: ip.Namespace, startPods: true})
	passSucceeds(g, working, ip, 0, "the pass that creates the 40 pods")
	g.Expect(podsOf(g, ip)).To(HaveLen(40))

	// A policy webhook refuses every delete, each with a long explanation: 40 of them,
	// joined, would make some 45 KiB.
	scaleTo(g, ip, 0)
	err := pass(g, broken, ip, 40)
	g.Expect(testenv.ErrorText(err)).To(ContainSubstring("denied the request"), "a pass whose deletes fail should return their error")
	got := latest(g, ip)
	g.Expect(readyAs(got)).To(Equal("False "+appsv1.ReasonReconcileError), "the Ready condition after a pass whose 40 "+
		"deletes failed: if it does not say ReconcileError, the API server refused the status patch, whose message may "+
		"not exceed 32 KiB (the pass's error: %.300s...)", testenv.ErrorText(err))
	message := readyCondition(got).Message
	g.Expect(message).To(ContainSubstring("40 of 40 failed; first: "), "the message should count the failures and show the first")
	g.Expect(len(message)).To(BeNumerically("<", 2048), "the message of 40 failures should be about as long as one's")
}

func TestANamespaceBeingDeletedIsNoError(t *testing.T) {
	g := NewWithT(t)
	ip := unmanaged(newImoocPod("", "web", 3))
	env.TerminatingNamespace(g, ip)
	c := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: true})

	passSucceeds(g, c, ip, 0, "a namespace being deleted refuses new pods, and takes the "+
		"ImoocPod with it: there is nothing to retry")
	g.Expect(podNames(podsOf(g, ip))).To(BeEmpty())
}

// A pass may read an ImoocPod from the cache just before someone deletes it: its status
// patch then finds nothing, which is no error. There is nothing left to write or retry,
// and the log would show a failed pass for a normal delete.
func TestAStatusPatchOfADeletedImoocPodIsNoError(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "deleted", 1)))
	c := newTestController(t, env.Config(), testControllerOptions{namespace: ip.Namespace, startPods: true})
	orig := ip.DeepCopy()
	g.Expect(env.Client().Delete(env.Context(), ip)).To(Succeed())

	err := c.patchStatus(env.Context(), orig, ip, nil)
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(),
		"the status patch of an ImoocPod deleted since the pass read it: NotFound means it is gone, not that the pass failed")
}
