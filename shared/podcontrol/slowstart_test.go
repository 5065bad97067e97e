package podcontrol

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestSlowStartDoublesTheBatches(t *testing.T) {
	g := NewWithT(t)
	var inFlight, peak atomic.Int32
	var calls atomic.Int32
	var seen [20]atomic.Int32
	done, err := SlowStart(20, func(i int) error {
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
	done, err := SlowStart(100, func(int) error {
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
