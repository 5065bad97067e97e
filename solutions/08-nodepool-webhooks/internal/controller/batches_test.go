package controller

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestSlowStartDoublesTheBatches(t *testing.T) {
	g := NewWithT(t)
	var inFlight, peak atomic.Int32
	var calls atomic.Int32
	var seen [20]atomic.Int32
	done, err := slowStart(20, func(i int) error {
		seen[i].Add(1)
		n := inFlight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		calls.Add(1)
		return nil
	})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(done).To(Equal(20))
	g.Expect(calls.Load()).To(BeEquivalentTo(20))
	for i := range seen {
		g.Expect(seen[i].Load()).To(BeEquivalentTo(1), "fn(%d) should be called once", i)
	}
	// 1+2+4+8 = 15, so the last batch holds the 5 that are left.
	g.Expect(peak.Load()).To(BeNumerically("<=", 8), "no batch is larger than 8 for 20 calls")
	g.Expect(peak.Load()).To(BeNumerically(">", 1), "calls within a batch run in parallel")
}

func TestSlowStartStopsAfterAFailingBatch(t *testing.T) {
	g := NewWithT(t)
	var calls atomic.Int32
	boom := errors.New("quota exceeded")
	done, err := slowStart(100, func(int) error {
		if calls.Add(1) > 4 {
			return boom
		}
		return nil
	})
	g.Expect(err).To(MatchError(boom))
	// Batches of 1 and 2 succeed; in the batch of 4 one call succeeds and three fail.
	g.Expect(done).To(Equal(4))
	g.Expect(calls.Load()).To(BeEquivalentTo(7), "no batch starts after one that failed")
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
