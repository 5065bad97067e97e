package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/12-clientgo/api/apps/v1"
)

// The controller running as cmd/main.go runs it, seen from the outside: what solution
// 02's tests check of its manager, the same behaviour from another library.

func TestCreatesPodsOwnedByTheImoocPod(t *testing.T) {
	running(t)
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "web", 3))

	for _, pod := range waitForPods(g, ip, 3) {
		g.Expect(pod.Labels).To(HaveKeyWithValue(NameLabel, "web"), "pod %s should carry the %s label", pod.Name, NameLabel)
		g.Expect(pod.Spec.Containers).To(HaveLen(1), "pod %s should have one container", pod.Name)
		g.Expect(pod.Spec.Containers[0].Image).To(Equal("registry.k8s.io/pause:3.10"), "pod %s should run the defaulted spec.image", pod.Name)
		g.Expect(describeRef(metav1.GetControllerOf(&pod))).To(Equal("ImoocPod/web uid "+string(ip.UID)+" controller=true blockOwnerDeletion=true"),
			"pod %s should have a controller OwnerReference to the ImoocPod", pod.Name)
	}
}

func TestLeavesOtherPodsAlone(t *testing.T) {
	running(t)
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
	running(t)
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "replace", 2))
	victim := waitForPods(g, ip, 2)[0]

	g.Expect(env.Client().Delete(env.Context(), &victim)).To(Succeed())

	g.Eventually(func(g Gomega) {
		names := podNames(podsOf(g, ip))
		g.Expect(names).NotTo(ContainElement(victim.Name), "pod %s was deleted", victim.Name)
		g.Expect(len(names)).To(Equal(2), "the controller should replace the deleted pod %s: "+
			"does the pod informer's delete event enqueue the ImoocPod (enqueueController)?", victim.Name)
	}).Should(Succeed())
}

// envtest has no kubelet and deletes an unscheduled pod at once, so the test's own
// finalizer holds the pod in Terminating, as a kubelet's grace period would.
func TestReplacesATerminatingPod(t *testing.T) {
	running(t)
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "terminating", 2))
	held := waitForPods(g, ip, 2)[0]

	deleteHeld(t, g, &held)

	g.Eventually(func(g Gomega) {
		g.Expect(len(podsOf(g, ip))).To(Equal(2), "pod %s is terminating (held by a finalizer) and should not count: "+
			"the controller should create its replacement now", held.Name)
	}).Should(Succeed())
}

func TestReplacesFinishedPods(t *testing.T) {
	running(t)
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
		g.Expect(running).To(Equal(2), "pod %s has Failed and should not count: another should replace it", done.Name)
	}).Should(Succeed())
}

func TestScaleDownKeepsTheReadyPods(t *testing.T) {
	running(t)
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "scaledown", 4))
	ready := podNames(waitForPods(g, ip, 4)[:2])
	// envtest runs no kubelet: play its part for two pods.
	for _, name := range ready {
		env.MarkReady(g, ip.Namespace, name)
	}
	// The controller must see them ready before it chooses which pods to delete.
	g.Eventually(func(g Gomega) {
		g.Expect(latest(g, ip).Status.ReadyReplicas).To(BeEquivalentTo(2), "status.readyReplicas")
	}).Should(Succeed())

	scaleTo(g, ip, 2)

	g.Eventually(func(g Gomega) {
		g.Expect(podNames(podsOf(g, ip))).To(ConsistOf(ready), "scaling down should delete the pods that are not ready")
	}).Should(Succeed())
}

func TestStatusCountsActiveAndReadyPods(t *testing.T) {
	running(t)
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "status", 3))

	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Status.Replicas).To(BeEquivalentTo(3), "status.replicas should count the active pods")
		g.Expect(got.Status.ReadyReplicas).To(BeZero(), "no pod is ready yet")
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), "status.observedGeneration")
		g.Expect(readyAs(got)).To(Equal("False "+appsv1.ReasonPodsNotReady), "the Ready condition")
	}).Should(Succeed())

	for i, pod := range podsOf(g, ip) {
		env.MarkReady(g, ip.Namespace, pod.Name)
		g.Eventually(func(g Gomega) {
			g.Expect(latest(g, ip).Status.ReadyReplicas).To(BeEquivalentTo(i+1),
				"status.readyReplicas should count pod %s once it is ready: does a pod update that "+
					"changes readiness enqueue its ImoocPod?", pod.Name)
		}).Should(Succeed())
	}
	g.Eventually(func(g Gomega) {
		g.Expect(readyAs(latest(g, ip))).To(Equal("True "+appsv1.ReasonAllReplicasReady), "the Ready condition")
	}).Should(Succeed())
}

func TestObservedGenerationFollowsTheSpec(t *testing.T) {
	running(t)
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "generation", 1))
	g.Eventually(func(g Gomega) {
		g.Expect(latest(g, ip).Status.ObservedGeneration).To(BeEquivalentTo(1), "status.observedGeneration")
	}).Should(Succeed())

	scaleTo(g, ip, 4)
	g.Expect(ip.Generation).To(BeEquivalentTo(2), "the API server bumps metadata.generation for a spec change")

	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(2),
			"status.observedGeneration should follow metadata.generation: does a spec change enqueue the ImoocPod?")
		g.Expect(got.Status.Replicas).To(BeEquivalentTo(4), "status.replicas")
		g.Expect(readyCondition(got).ObservedGeneration).To(BeEquivalentTo(2), "the Ready condition's observedGeneration")
	}).Should(Succeed())
	g.Expect(latest(g, ip).Spec.Replicas).To(HaveValue(BeEquivalentTo(4)), "the controller never writes the spec")
}

// The scale subresource is what `kubectl scale` and autoscalers use.
func TestTheScaleSubresource(t *testing.T) {
	running(t)
	g := NewWithT(t)
	ctx := env.Context()
	ip := create(g, newImoocPod(env.Namespace(t), "scale", 2))
	g.Eventually(func(g Gomega) {
		g.Expect(latest(g, ip).Status.Replicas).To(BeEquivalentTo(2), "status.replicas")
	}).Should(Succeed())

	var scale autoscalingv1.Scale
	g.Expect(env.Client().SubResource("scale").Get(ctx, ip, &scale)).To(Succeed(), "the CRD should have a scale subresource")
	g.Expect(scale.Status.Replicas).To(BeEquivalentTo(2), "scale.status.replicas should be status.replicas")
	g.Expect(scale.Status.Selector).To(Equal(NameLabel+"="+ip.Name),
		"scale.status.selector, through which an autoscaler finds the pods, should be status.selector")

	scale.Spec.Replicas = 5
	g.Expect(env.Client().SubResource("scale").Update(ctx, ip, client.WithSubResourceBody(&scale))).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(latest(g, ip).Status.Replicas).To(BeEquivalentTo(5), "status.replicas")
		g.Expect(len(podsOf(g, ip))).To(Equal(5), "the controller should follow the scale to 5 pods")
	}).Should(Succeed())
}
