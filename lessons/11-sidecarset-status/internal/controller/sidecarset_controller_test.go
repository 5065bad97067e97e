package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/11-sidecarset-status/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/11-sidecarset-status/internal/sidecars"
)

// Pods created before the SidecarSet match it but run no sidecar; the pods created after
// run it. The status counts both, and says which pods lack the sidecars.
func TestTheStatusCountsMatchedAndInjectedPods(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	value := newCase("counts")
	createPods(g, ns, "early", value, 2)
	set := createSidecarSet(t, g, value, "busybox:1.37")

	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 2}), "two pods match, created before the SidecarSet")
		g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("False PodsNotInjected"))
		g.Expect(s.Revision).To(Equal(sidecars.Revision(&set.Spec)))
		g.Expect(s.ObservedGeneration).To(Equal(set.Generation))
	}).Should(Succeed(), "the status of a SidecarSet whose pods predate it")

	late := createPods(g, ns, "late", value, 3)
	g.Expect(recordOf(g, late[0])).To(HaveKey(set.Name), "the webhook injects the pods created after the SidecarSet")
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 5, Injected: 3}))
		g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("False PodsNotInjected"))
		g.Expect(condition(s, sidecarsv1.ConditionUpToDate)).To(Equal("True AllPodsUpToDate"))
	}).Should(Succeed(), "five pods match, three run the sidecar")

	// The early pods go: every matched pod runs the sidecar now.
	for _, name := range []string{"early-0", "early-1"} {
		pod := &corev1.Pod{}
		pod.Namespace, pod.Name = ns, name
		g.Expect(client.IgnoreNotFound(env.Client.Delete(env.Context(), pod, client.GracePeriodSeconds(0)))).To(Succeed())
	}
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 3, Injected: 3}))
		g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("True AllPodsInjected"))
	}).Should(Succeed(), "deleted pods leave the counts")
}

// A pod whose labels change leaves the SidecarSet's counts; one in another SidecarSet's
// selection joins that one's.
func TestAPodThatLosesTheLabelLeavesTheCounts(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	value := newCase("relabel")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	pods := createPods(g, ns, "pod", value, 2)
	g.Eventually(func(g Gomega) { g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 2, Injected: 2})) }).Should(Succeed())

	patch := client.MergeFrom(pods[0].DeepCopy())
	pods[0].Labels[caseLabel] = "elsewhere"
	g.Expect(env.Client.Patch(env.Context(), pods[0], patch)).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 1, Injected: 1})) }).
		Should(Succeed(), "the controller should hear of a pod's new labels, through its old ones")
}

// Changing a SidecarSet changes no running pod: the status counts the pods of the older
// revision, says so in UpToDate, and tells it with one event.
func TestAChangedSidecarSetCountsTheOutdatedPods(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	value := newCase("outdated")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	pods := createPods(g, ns, "old", value, 2)
	oldRevision := sidecars.Revision(&set.Spec)
	g.Eventually(func(g Gomega) {
		g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 2, Injected: 2}))
	}).Should(Succeed())

	// A patch, not an update: the controller writes the status, which changes the
	// resourceVersion an update would have to carry.
	patch := client.MergeFrom(set.DeepCopy())
	set.Spec.Containers[0].Image = "busybox:1.38"
	g.Expect(env.Client.Patch(env.Context(), set, patch)).To(Succeed())
	waitForCache(g, set)
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 2, Injected: 2, Outdated: 2}))
		g.Expect(condition(s, sidecarsv1.ConditionUpToDate)).To(Equal("False OlderRevisions"))
		g.Expect(s.Revision).To(Equal(sidecars.Revision(&set.Spec)))
		g.Expect(s.Revision).NotTo(Equal(oldRevision))
	}).Should(Succeed(), "both pods run the older revision")
	g.Expect(recordOf(g, pods[0])).To(HaveKeyWithValue(set.Name, oldRevision), "a running pod is never changed")

	createPods(g, ns, "new", value, 1)
	g.Eventually(func(g Gomega) {
		g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 3, Injected: 3, Outdated: 2}))
	}).Should(Succeed(), "a new pod gets the new revision")
	g.Eventually(func(g Gomega) { g.Expect(eventsOf(g, set)).To(ContainElement(EventRevisionChanged)) }).Should(Succeed())
}

// Events tell of changes, once: passes that find the same, and pod updates that change
// no count, write none.
func TestEventsOnlyOnRealChange(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	value := newCase("events")
	createPods(g, ns, "early", value, 1)
	set := createSidecarSet(t, g, value, "busybox:1.37")
	g.Eventually(func(g Gomega) {
		g.Expect(eventsOf(g, set)).To(Equal([]string{EventPodsNotInjected}))
	}).Should(Succeed(), "one PodsNotInjected event when the SidecarSet first finds a pod without its sidecar")

	// More pods, and the kubelet's status updates of a pod: the condition stays False
	// with the same reason, so no second event.
	pods := createPods(g, ns, "late", value, 2)
	pods[0].Status.Phase = corev1.PodRunning
	g.Expect(env.Client.Status().Update(env.Context(), pods[0])).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 3, Injected: 2})) }).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(eventsOf(g, set)).To(Equal([]string{EventPodsNotInjected}))
	}, "2s").Should(Succeed(), "no event for a change that changed nothing a user should hear of: PodsNotInjected "+
		"is told when the Injected condition turns False, not on every pass that finds it still False")
}
