package podcontrol

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

// expectationsTimeout bounds how long a pass waits for the cache: a pod deleted by
// someone else before the cache ever saw it would otherwise keep us waiting forever.
const expectationsTimeout = 5 * time.Minute

// Expectations protect a controller from its own cache. Reads come from an informer
// cache that lags the API server by a few milliseconds to seconds; a pass that runs
// right after creating pods may not see them yet and would create them again. So each
// pass records the names of the pods it created and deleted, and the next pass acts only
// once the cache shows all of them (or after expectationsTimeout).
//
// The ReplicaSet controller counts expected creates and deletes and lowers the counts in
// its event handlers; remembering names and checking them against the list we read
// anyway gives the same protection without touching the event handlers.
//
// The zero value is ready to use and safe for concurrent use.
type Expectations struct {
	mu      sync.Mutex
	byOwner map[types.NamespacedName]*expected
	// now and timeout are replaced by tests.
	now     func() time.Time
	timeout time.Duration
}

type expected struct {
	creates, deletes sets.Set[string]
	since            time.Time
}

// ExpectCreate records that the owner's pass created the pod named pod.
func (e *Expectations) ExpectCreate(owner types.NamespacedName, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(owner).creates.Insert(pod)
}

// ExpectDelete records that the owner's pass deleted the pod named pod.
func (e *Expectations) ExpectDelete(owner types.NamespacedName, pod string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(owner).deletes.Insert(pod)
}

// Pending compares the owner's expectations with the pods the cache lists now. It
// forgets every create the cache shows and every delete it shows done (the pod gone or
// terminating), and returns how long to wait for the rest: 0 when nothing is pending
// or the wait has timed out.
func (e *Expectations) Pending(owner types.NamespacedName, pods []corev1.Pod) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	exp, ok := e.byOwner[owner]
	if !ok {
		return 0
	}
	present := make(map[string]*corev1.Pod, len(pods))
	for i := range pods {
		present[pods[i].Name] = &pods[i]
	}
	for name := range exp.creates {
		if present[name] != nil {
			exp.creates.Delete(name)
		}
	}
	for name := range exp.deletes {
		if pod := present[name]; pod == nil || !pod.DeletionTimestamp.IsZero() {
			exp.deletes.Delete(name)
		}
	}
	left := exp.since.Add(e.timeoutOrDefault()).Sub(e.clock())
	if exp.creates.Len()+exp.deletes.Len() == 0 || left <= 0 {
		delete(e.byOwner, owner)
		return 0
	}
	return left
}

// Forget drops everything recorded for an owner that no longer exists.
func (e *Expectations) Forget(owner types.NamespacedName) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.byOwner, owner)
}

func (e *Expectations) entry(owner types.NamespacedName) *expected {
	if e.byOwner == nil {
		e.byOwner = map[types.NamespacedName]*expected{}
	}
	exp, ok := e.byOwner[owner]
	if !ok {
		exp = &expected{creates: sets.New[string](), deletes: sets.New[string](), since: e.clock()}
		e.byOwner[owner] = exp
	}
	return exp
}

func (e *Expectations) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

func (e *Expectations) timeoutOrDefault() time.Duration {
	if e.timeout > 0 {
		return e.timeout
	}
	return expectationsTimeout
}
