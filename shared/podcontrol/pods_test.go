package podcontrol

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestIsPodReadyReadsTheReadyCondition(t *testing.T) {
	g := NewWithT(t)
	ready := corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue},
	}}}
	g.Expect(IsPodReady(&ready)).To(BeTrue())
	ready.Status.Conditions[1].Status = corev1.ConditionFalse
	g.Expect(IsPodReady(&ready)).To(BeFalse())
	g.Expect(IsPodReady(&corev1.Pod{})).To(BeFalse(), "a pod the kubelet has not reported on is not ready")
}

func TestIsPodActiveLeavesOutTerminatingAndFinishedPods(t *testing.T) {
	g := NewWithT(t)
	g.Expect(IsPodActive(&corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}})).To(BeTrue())
	g.Expect(IsPodActive(&corev1.Pod{})).To(BeTrue(), "a pod not yet scheduled is active")
	terminating := corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{Time: time.Now()}}}
	g.Expect(IsPodActive(&terminating)).To(BeFalse())
	for _, phase := range []corev1.PodPhase{corev1.PodSucceeded, corev1.PodFailed} {
		g.Expect(IsPodActive(&corev1.Pod{Status: corev1.PodStatus{Phase: phase}})).To(BeFalse(), string(phase))
	}
}
