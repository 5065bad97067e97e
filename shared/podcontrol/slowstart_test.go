package podcontrol

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/kube-workshop/operator-workshop/shared/batcherr"
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

// A pass puts its error in a status condition, whose message may not exceed 32 KiB: the
// errors of hundreds of failed writes must not add up.
func TestInParallelReportsHowManyFailedAndTheFirst(t *testing.T) {
	g := NewWithT(t)
	denied := func(i int) error {
		return fmt.Errorf("pod-%03d: admission webhook denied the request: %s", i, strings.Repeat("policy ", 150))
	}
	done, err := InParallel(500, func(i int) error {
		if i%5 == 0 {
			return nil
		}
		return denied(i)
	})
	g.Expect(done).To(Equal(100))
	g.Expect(err).To(MatchError(HavePrefix("400 of 500 failed; first: pod-001: admission webhook denied the request")),
		"the message counts the failures and shows the first, in the order of their messages")
	g.Expect(len(err.Error())).To(BeNumerically("<", 2048), "the message of 400 failures should be as long as one's")
	var each *batcherr.Error
	g.Expect(errors.As(err, &each)).To(BeTrue())
	g.Expect(each.Unwrap()).To(HaveLen(400), "every error is still there for errors.Is and errors.As")

	_, err = InParallel(3, func(i int) error {
		if i == 1 {
			return denied(i)
		}
		return nil
	})
	g.Expect(err).To(MatchError(denied(1).Error()), "one failure is reported as it is")
	_, err = InParallel(3, func(int) error { return nil })
	g.Expect(err).NotTo(HaveOccurred())
}
