package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
	names := func(pods []corev1.Pod) []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Name)
		}
		return out
	}

	g.Expect(names(podsToDelete(pods, 3))).To(Equal([]string{"new-starting", "old-starting", "new-ready"}))
	g.Expect(names(podsToDelete(pods, 10))).To(HaveLen(4), "never more than there are")
	g.Expect(names(pods)).To(Equal([]string{"old-ready", "new-ready", "old-starting", "new-starting"}),
		"the input comes from the cache and must not be reordered")
}
