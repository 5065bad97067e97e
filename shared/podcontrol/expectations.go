package podcontrol

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// expectationsTimeout bounds how long a pass waits for the cache. The cache lags the API
// server by milliseconds, seconds on a loaded one. A pod deleted before any pass listed
// it never shows in a list, but its delete event clears it (ObserveDeleted). No event
// clears a pod created and deleted while the informer's watch was broken (the list it
// makes again holds neither), nor one whose delete event came before its owner's pass
// recorded it (a matter of microseconds). The ReplicaSet controller waits 5 minutes for
// such a pod; here a minute, far above any healthy lag, is the longest an owner stalls.
// Should the cache really lag that much, the cost is one pass that acts on an old list:
// surplus pods the next pass deletes, or a pod name the API server refuses.
const expectationsTimeout = time.Minute

// Expectations protect a controller from its own cache. Reads come from an informer
// cache that lags the API server by a few milliseconds to seconds; a pass that runs
// right after creating pods may not see them yet and would create them again. So each
// pass records the pods it created and deleted, and the next pass acts only once the
// cache shows all of them (or after expectationsTimeout).
//
// The ReplicaSet controller counts expected creates and deletes and lowers the counts in
// its event handlers; here each pass checks the pods it remembers against the list it
// reads anyway. A list cannot show a pod that was created and deleted in between two
// passes, so the watch of the pods also reports each deletion (DeletionObserver, or
// ObserveDeleted from a client-go event handler): without it, a pod someone deletes
// right after its create stalls its owner until the timeout.
//
// Pods and owners are told apart by UID, not by name. A name comes back: a MyDaemonSet's
// pod is named after its node, and an ImoocPod deleted and created again under the same
// name (in between two passes, so that no pass saw it gone) is another owner, which must
// not wait for the pods its predecessor expected. Like the ReplicaSet controller, the
// records are kept per namespace/name, so that Forget needs no UID, and each record
// holds the UID of the owner that made it.
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
	owner            types.UID
	creates, deletes sets.Set[types.UID]
	since            time.Time
}

// ExpectCreate records that owner's pass created pod, as the API server returned it
// (the UID is the server's).
func (e *Expectations) ExpectCreate(owner metav1.Object, pod *corev1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(owner).creates.Insert(pod.UID)
}

// ExpectDelete records that owner's pass deleted pod.
func (e *Expectations) ExpectDelete(owner metav1.Object, pod *corev1.Pod) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.entry(owner).deletes.Insert(pod.UID)
}

// ObserveDeleted tells e that the cache saw pod deleted: the owner that controls it
// waits no longer for its create or its delete. Call it from the delete handler of the
// pods' informer, before the handler queues the owner.
func (e *Expectations) ObserveDeleted(pod metav1.Object) {
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	// Only a record of that very owner: a deleted owner's pods go after it did, and must
	// leave nothing behind.
	exp, ok := e.byOwner[types.NamespacedName{Namespace: pod.GetNamespace(), Name: ref.Name}]
	if !ok || exp.owner != ref.UID {
		return
	}
	exp.creates.Delete(pod.GetUID())
	exp.deletes.Delete(pod.GetUID())
}

// DeletionObserver returns a predicate that passes every event and calls ObserveDeleted
// for each deletion (of a pod, or of an object no owner expects, which changes nothing).
// Give it to the controller's builder with WithEventFilter: its predicates come before
// each watch's own, so no filter drops a deletion before it is recorded, and the pass
// the deletion starts finds it so.
func (e *Expectations) DeletionObserver() predicate.Predicate {
	return predicate.Funcs{DeleteFunc: func(ev event.DeleteEvent) bool {
		e.ObserveDeleted(ev.Object)
		return true
	}}
}

// Pending compares owner's expectations with the pods the cache lists now. It forgets
// every create the cache shows and every delete it shows done (the pod gone or
// terminating, even when a new pod has its name), and returns how long to wait for the
// rest: 0 when nothing is pending, when the wait has timed out, or when what was
// expected was expected by an earlier owner of the same name.
func (e *Expectations) Pending(owner metav1.Object, pods []corev1.Pod) time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := keyOf(owner)
	exp, ok := e.byOwner[key]
	if !ok {
		return 0
	}
	if exp.owner != owner.GetUID() {
		delete(e.byOwner, key)
		return 0
	}
	present := make(map[types.UID]*corev1.Pod, len(pods))
	for i := range pods {
		present[pods[i].UID] = &pods[i]
	}
	for uid := range exp.creates {
		if present[uid] != nil {
			exp.creates.Delete(uid)
		}
	}
	for uid := range exp.deletes {
		if pod := present[uid]; pod == nil || !pod.DeletionTimestamp.IsZero() {
			exp.deletes.Delete(uid)
		}
	}
	left := exp.since.Add(e.timeoutOrDefault()).Sub(e.clock())
	if exp.creates.Len()+exp.deletes.Len() == 0 || left <= 0 {
		delete(e.byOwner, key)
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

// entry returns owner's record, a new one when there is none or when the one there was
// made by an earlier owner of the same name.
func (e *Expectations) entry(owner metav1.Object) *expected {
	if e.byOwner == nil {
		e.byOwner = map[types.NamespacedName]*expected{}
	}
	key := keyOf(owner)
	exp, ok := e.byOwner[key]
	if !ok || exp.owner != owner.GetUID() {
		exp = &expected{owner: owner.GetUID(), creates: sets.New[types.UID](), deletes: sets.New[types.UID](), since: e.clock()}
		e.byOwner[key] = exp
	}
	return exp
}

func keyOf(owner metav1.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: owner.GetNamespace(), Name: owner.GetName()}
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
