package podcontrol

import (
	"sync"

	"github.com/kube-workshop/operator-workshop/shared/batcherr"
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
// succeeded and, when some failed, their batcherr.Error: one short message, however many
// failed.
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
	return n - len(errs), batcherr.Join(errs, n)
}
