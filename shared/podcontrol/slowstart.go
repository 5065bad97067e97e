package podcontrol

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// SlowStart calls fn(0) … fn(count-1) in parallel batches that double in size (1, 2, 4,
// ...) while every call succeeds, like the ReplicaSet controller. When something is wrong
// for every call (a quota, a webhook, a missing permission) the first call fails alone
// instead of a thousand calls failing together. It returns how many calls succeeded and
// the error of the first batch that had any (see InParallel); no batch starts after that
// one.
func SlowStart(count int, fn func(i int) error) (int, error) {
	done := 0
	for batch := 1; done < count; batch *= 2 {
		size, first := min(batch, count-done), done
		ok, err := InParallel(size, func(i int) error { return fn(first + i) })
		done += ok
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// InParallel calls fn(0) … fn(n-1) at once, waits for all of them, and returns how many
// succeeded and, when some failed, their Errors.
func InParallel(n int, fn func(i int) error) (int, error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i := range n {
		wg.Go(func() {
			if err := fn(i); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return n - len(errs), JoinErrors(errs, n)
}

// Errors is the error of a batch of total calls of which some failed. Its message counts
// the failures and shows only the first, "3 of 40 failed; first: ...": the messages of
// a few hundred failed pod writes, joined, would make kilobytes. A pass puts its error
// in a status condition, whose message the API server refuses past 32 KiB: with the
// status patch refused, the status would stop changing just when it has most to say.
// Each error is still there for errors.Is and errors.As.
type Errors struct {
	errs  []error
	total int
}

// JoinErrors returns the Errors of total calls of which errs failed, or nil when none
// failed. The errors are sorted by message: calls run in parallel finish in any order,
// and the same failures must make the same message on every pass, or each pass would
// write the status again.
func JoinErrors(errs []error, total int) error {
	if len(errs) == 0 {
		return nil
	}
	sorted := slices.Clone(errs)
	slices.SortStableFunc(sorted, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return &Errors{errs: sorted, total: total}
}

func (e *Errors) Error() string {
	if len(e.errs) == 1 {
		return e.errs[0].Error()
	}
	return fmt.Sprintf("%d of %d failed; first: %v", len(e.errs), e.total, e.errs[0])
}

func (e *Errors) Unwrap() []error { return e.errs }
