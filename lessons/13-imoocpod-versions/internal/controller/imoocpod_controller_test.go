package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The tests follow the lesson's tasks: first the functions one at a time (newPod,
// activePods, podsToDelete), then single passes of Reconcile, then the whole controller
// running in the manager, which needs every task.

func TestNewPodIsControlledByTheImoocPod(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	r := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "web", 3)))

	pod, err := r.newPod(ip)
	if err != nil {
		t.Fatalf("newPod: %v", err)
	}
	g.Expect(pod).NotTo(BeNil(), "newPod should return a pod")
	g.Expect(pod.Name).To(BeEmpty(), "newPod should leave metadata.name to the API server: a fixed name clashes with the next pod")
	g.Expect(pod.GenerateName).To(HavePrefix("web"), "metadata.generateName should start with the ImoocPod's name")
	g.Expect(pod.Namespace).To(Equal(ip.Namespace), "the pod belongs in the ImoocPod's namespace")
	g.Expect(pod.Labels).To(HaveKeyWithValue(NameLabel, "web"), "the pod should carry the %s label", NameLabel)
	g.Expect(containerImages(pod)).To(Equal([]string{"registry.k8s.io/pause:3.10"}),
		"the pod should have one container running spec.image")
	ref := metav1.GetControllerOf(pod)
	g.Expect(ref).NotTo(BeNil(), "the pod has no controller OwnerReference: newPod should call "+
		"controllerutil.SetControllerReference, or the controller never counts its own pods and the "+
		"garbage collector never deletes them")
	g.Expect(describeRef(ref)).To(Equal("ImoocPod/web uid "+string(ip.UID)+" controller=true blockOwnerDeletion=true"),
		"the controller OwnerReference should point at the ImoocPod")
	g.Expect(env.Client().Create(ctx, pod, client.DryRunAll)).To(Succeed(), "the API server should accept the pod")
}

func TestActivePodsKeepsOnlyThePodsThatCount(t *testing.T) {
	owner := newImoocPod("ns", "web", 3)
	owner.UID = "uid-web"
	pod := func(name string, change func(*corev1.Pod)) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{NameLabel: "web"}}}
		p.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "apps.workshop.dev/v1", Kind: "ImoocPod", Name: "web", UID: owner.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
		}}
		p.Status.Phase = corev1.PodRunning
		change(&p)
		return p
	}
	tests := []struct {
		pod    corev1.Pod
		counts bool
		why    string
	}{
		{pod("web-running", func(*corev1.Pod) {}), true, "it runs and the ImoocPod controls it"},
		{pod("web-pending", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }), true,
			"it is starting, and the ImoocPod controls it"},
		{pod("orphan", func(p *corev1.Pod) { p.OwnerReferences = nil }), false,
			"it has the label but no controller OwnerReference: it is someone else's (metav1.IsControlledBy)"},
		{pod("foreign", func(p *corev1.Pod) { p.OwnerReferences[0].Kind, p.OwnerReferences[0].UID = "ReplicaSet", "uid-other" }), false,
			"it has the label but a ReplicaSet controls it (metav1.IsControlledBy)"},
		{pod("web-terminating", func(p *corev1.Pod) {
			p.DeletionTimestamp = ptr.To(metav1.Now())
			p.Finalizers = []string{holdFinalizer}
		}), false, "it is terminating (deletionTimestamp set): counting it delays its replacement until it is gone"},
		{pod("web-succeeded", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }), false,
			"it has finished (phase Succeeded) and will never run again"},
		{pod("web-failed", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }), false,
			"it has finished (phase Failed) and will never run again"},
	}
	var pods []corev1.Pod
	for _, tt := range tests {
		pods = append(pods, tt.pod)
	}
	given := podNames(pods)

	active := podNames(activePods(owner, pods))

	for _, tt := range tests {
		t.Run(tt.pod.Name, func(t *testing.T) {
			g := NewWithT(t)
			if tt.counts {
				g.Expect(active).To(ContainElement(tt.pod.Name), "activePods should keep pod %s: %s", tt.pod.Name, tt.why)
			} else {
				g.Expect(active).NotTo(ContainElement(tt.pod.Name), "activePods should skip pod %s: %s", tt.pod.Name, tt.why)
			}
		})
	}
	NewWithT(t).Expect(podNames(pods)).To(Equal(given),
		"activePods changed the slice it was given, which comes from the cache: build a new one")
}

func TestPodsToDeletePrefersNotReadyThenNewest(t *testing.T) {
	g := NewWithT(t)
	at := func(name string, minutes int, ready bool) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			CreationTimestamp: metav1.NewTime(time.Unix(0, 0).Add(time.Duration(minutes) * time.Minute)),
		}}
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
		return p
	}
	pods := []corev1.Pod{
		at("old-ready", 1, true),
		at("new-ready", 5, true),
		at("old-starting", 2, false),
		at("new-starting", 4, false),
	}

	g.Expect(podNames(podsToDelete(pods, 3))).To(Equal([]string{"new-starting", "old-starting", "new-ready"}),
		"not ready before ready, newest first within each")
	g.Expect(podNames(podsToDelete(pods, 10))).To(HaveLen(4), "never more than there are")
	g.Expect(podNames(pods)).To(Equal([]string{"old-ready", "new-ready", "old-starting", "new-starting"}),
		"the input comes from the cache and must not be reordered")
}

// A direct call of Reconcile shows what one pass does: the whole difference, not one pod.
func TestOnePassScalesTheWholeDifference(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	r := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "batch", 40)))

	result, err := r.Reconcile(ctx, requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass's error")
	g.Expect(result).To(Equal(ctrl.Result{}), "a pass that creates pods should not requeue")
	created := len(podsOf(g, ip))
	g.Expect(created).To(Equal(40),
		"one pass should create all 40 missing pods, not one pod per pass; it created %d", created)

	scaleTo(g, ip, 7)
	result, err = r.Reconcile(ctx, requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass's error")
	g.Expect(result).To(Equal(ctrl.Result{}), "a pass that deletes pods should not requeue")
	g.Expect(len(podsOf(g, ip))).To(Equal(7),
		"one pass should delete all 33 surplus pods, not one pod per pass")
}

// The reconciler reads pods from a cache that may not show its own creates yet. Here the
// cache is frozen before the first pass: every later pass sees no pods at all.
func TestStaleCacheNeverCreatesTooMany(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	stale := &testenv.FrozenPodList{Client: env.Client()}
	r := &ImoocPodReconciler{Client: stale, Scheme: env.Scheme()}
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "stale", 5)))

	for pass := range 3 {
		_, err := r.Reconcile(ctx, requestFor(ip))
		g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the error of pass %d", pass)
	}
	g.Expect(len(podsOf(g, ip))).To(Equal(5),
		"3 passes over a cache that never shows their creates should leave 5 pods: more means a pass "+
			"created again (expectations), fewer means the first pass did not create the whole difference")
}

// An ImoocPod deleted and created again under the same name is another ImoocPod. When
// both events come between two passes, the work queue hands the name out once and no
// pass sees the first one gone, so nothing forgets what the first one expected. The new
// one must not wait for those pods: here the cache never shows them (it is frozen), as
// with pods the garbage collector took before the cache saw them.
func TestAnImoocPodCreatedAgainDoesNotWaitForThePodsOfTheFirst(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	r := &ImoocPodReconciler{Client: &testenv.FrozenPodList{Client: env.Client()}, Scheme: env.Scheme()}
	first := create(g, unmanaged(newImoocPod(ns, "again", 2)))
	_, err := r.Reconcile(ctx, requestFor(first))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the first ImoocPod's pass")
	// envtest runs no garbage collector: the test deletes the pods, as it would.
	for _, pod := range podsOf(g, first) {
		g.Expect(env.Client().Delete(ctx, &pod)).To(Succeed())
	}
	g.Expect(env.Client().Delete(ctx, first)).To(Succeed())

	second := create(g, unmanaged(newImoocPod(ns, "again", 2)))
	result, err := r.Reconcile(ctx, requestFor(second))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the second ImoocPod's pass")
	g.Expect(podsOf(g, second)).To(HaveLen(2), "pods of the ImoocPod created again, after its first pass "+
		"(it waited %s for the pods of the ImoocPod deleted before it: expectations must be kept per UID)",
		result.RequeueAfter)
}

func TestIdlePassWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "idle", 3))
	waitForPods(g, ip, 3)

	// Let the cache catch up with the creates, as it does between two events, and the
	// running controller finish what they start.
	waitUntilSettled(g, ip, 3)
	idlePass := idlePasses(t, g, ip)
	idlePass("3 pods, none ready")
}

// From here on the controller runs in the manager, as it does on a cluster: these tests
// need every task.

func TestCreatesPodsOwnedByTheImoocPod(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "web", 3))

	for _, pod := range waitForPods(g, ip, 3) {
		g.Expect(pod.Labels).To(HaveKeyWithValue(NameLabel, "web"), "pod %s should carry the %s label", pod.Name, NameLabel)
		g.Expect(containerImages(&pod)).To(Equal([]string{"registry.k8s.io/pause:3.10"}),
			"pod %s should run the defaulted spec.image", pod.Name)
		g.Expect(describeRef(metav1.GetControllerOf(&pod))).To(HaveSuffix("blockOwnerDeletion=true"),
			"foreground deletion of the ImoocPod should wait for pod %s", pod.Name)
	}
}

func TestLeavesOtherPodsAlone(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	// An orphan with our label, and a pod controlled by someone else with our label.
	orphan := labelledPod(ns, "orphan", "shared")
	foreign := labelledPod(ns, "foreign", "shared")
	foreign.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other", UID: "1234", Controller: ptr.To(true),
	}}
	g.Expect(env.Client().Create(ctx, orphan)).To(Succeed())
	g.Expect(env.Client().Create(ctx, foreign)).To(Succeed())

	ip := create(g, newImoocPod(ns, "shared", 1))
	g.Eventually(func(g Gomega) {
		g.Expect(len(podsOf(g, ip))).To(Equal(1), "pods the ImoocPod does not control should not count")
	}).Should(Succeed())

	scaleTo(g, ip, 0)
	g.Eventually(func(g Gomega) { g.Expect(podNames(podsOf(g, ip))).To(BeEmpty(), "after a scale to 0") }).Should(Succeed())
	for _, pod := range []*corev1.Pod{orphan, foreign} {
		g.Expect(env.Client().Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed(),
			"pod %s is not the ImoocPod's and must survive its scale-down", pod.Name)
		g.Expect(metav1.IsControlledBy(pod, ip)).To(BeFalse(), "pod %s must not be adopted", pod.Name)
	}
}

func TestReplacesAPodDeletedBySomeoneElse(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "replace", 2))
	victim := waitForPods(g, ip, 2)[0]

	g.Expect(env.Client().Delete(env.Context(), &victim)).To(Succeed())

	g.Eventually(func(g Gomega) {
		names := podNames(podsOf(g, ip))
		g.Expect(names).NotTo(ContainElement(victim.Name), "pod %s was deleted", victim.Name)
		g.Expect(len(names)).To(Equal(2), "the controller should replace the deleted pod %s", victim.Name)
	}).Should(Succeed())
}

// A kubelet keeps a deleted pod for its grace period, 30 s by default, and a finalizer
// keeps it until someone removes the finalizer. envtest has no kubelet and deletes an
// unscheduled pod at once, so the test's own finalizer holds the pod in Terminating.
func TestReplacesATerminatingPod(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "terminating", 2))
	held := waitForPods(g, ip, 2)[0]

	deleteHeld(t, g, &held)

	g.Eventually(func(g Gomega) {
		g.Expect(len(podsOf(g, ip))).To(Equal(2), "pod %s is terminating (held by a finalizer) and should not count: "+
			"the controller should create its replacement now; does activePods skip pods with a deletionTimestamp?", held.Name)
	}).Should(Succeed())
}

func TestReplacesFinishedPods(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "finished", 2))
	done := waitForPods(g, ip, 2)[0]

	done.Status.Phase = corev1.PodFailed
	g.Expect(env.Client().Status().Update(env.Context(), &done)).To(Succeed())

	g.Eventually(func(g Gomega) {
		var running int
		for _, pod := range podsOf(g, ip) {
			if pod.Status.Phase != corev1.PodFailed {
				running++
			}
		}
		g.Expect(running).To(Equal(2), "pod %s has Failed and should not count: another should replace it "+
			"(and the pod's update must start a pass)", done.Name)
	}).Should(Succeed())
}

func TestScaleDownKeepsTheReadyPods(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "scaledown", 4))
	ready := podNames(waitForPods(g, ip, 4)[:2])
	// envtest runs no kubelet: play its part for two pods.
	for _, name := range ready {
		env.MarkReady(g, ip.Namespace, name)
	}
	// The pass ranks the pods as the manager's cache shows them: until the cache has seen
	// the two ready, all four look alike to it, and any two may go.
	g.Eventually(func(g Gomega) {
		var seen []string
		for _, pod := range cachedPods(g, ip) {
			if podcontrol.IsPodReady(&pod) {
				seen = append(seen, pod.Name)
			}
		}
		g.Expect(seen).To(ConsistOf(ready), "the pods ready in the manager's cache")
	}).Should(Succeed())

	scaleTo(g, ip, 2)

	g.Eventually(func(g Gomega) {
		g.Expect(podNames(podsOf(g, ip))).To(ConsistOf(ready),
			"scaling down should delete the pods that are not ready")
	}).Should(Succeed())
}

func TestANamespaceBeingDeletedIsNoError(t *testing.T) {
	g := NewWithT(t)
	ip := unmanaged(newImoocPod("", "web", 3))
	env.TerminatingNamespace(g, ip)
	r := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}

	result, err := r.Reconcile(env.Context(), requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "a namespace being deleted refuses new pods, and takes the ImoocPod with it: "+
		"there is nothing to retry")
	g.Expect(result).To(Equal(ctrl.Result{}))
	g.Expect(podNames(podsOf(g, ip))).To(BeEmpty())
}

func TestAnImoocPodThatIsGoneIsNoError(t *testing.T) {
	g := NewWithT(t)
	r := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}
	gone := ctrl.Request{NamespacedName: client.ObjectKey{Namespace: env.Namespace(t), Name: "gone"}}

	result, err := r.Reconcile(env.Context(), gone)
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "NotFound means the ImoocPod was deleted and its pods go with it: "+
		"an error would retry a name that never comes back")
	g.Expect(result).To(Equal(ctrl.Result{}))
}
