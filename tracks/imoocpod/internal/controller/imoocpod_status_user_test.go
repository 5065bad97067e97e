package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv2 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v2"
)

// What a user reads of an ImoocPod (kubectl get, kubectl describe) is its status, as the
// API server holds it: the test reads it there, through env.Client(), never through the
// manager's cache, which may lag or run ahead of what was written.
func TestTheStatusSaysWhatTheUserSees(t *testing.T) {
	//lesson:2.9
	//lesson:stub _ = NewWithT(t) // the package's tests assert with Gomega; yours too
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "user", 2))

	// Before any pod is ready: both counted, none ready, and the condition says why.
	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Status.Replicas).To(BeEquivalentTo(2), "status.replicas should count the 2 pods")
		g.Expect(got.Status.ReadyReplicas).To(BeZero(), "no pod is ready yet")
		g.Expect(got).To(haveReady(metav1.ConditionFalse, appsv2.ReasonPodsNotReady), "the Ready condition")
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), "status.observedGeneration")
	}).Should(Succeed())

	// envtest runs no kubelet: the test marks the pods ready as one would.
	for _, pod := range podsOf(g, ip) {
		env.MarkReady(g, ip.Namespace, pod.Name)
	}
	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(2), "status.readyReplicas once both pods are ready")
		g.Expect(got).To(haveReady(metav1.ConditionTrue, appsv2.ReasonAllReplicasReady), "the Ready condition")
	}).Should(Succeed())
	// Reaching the right count once is not enough: it must stay there while the
	// controller's later passes run.
	g.Consistently(func(g Gomega) {
		g.Expect(latest(g, ip).Status.ReadyReplicas).To(BeEquivalentTo(2), "status.readyReplicas should stay at 2")
	}).WithTimeout(2 * time.Second).Should(Succeed())
	//lesson:end
}
