// Package statuswrite keeps a controller's status from its own cache: it records the
// status writes of the controller's passes, so that a pass can tell when the copy of an
// object its cache gives predates its last write.
package statuswrite

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// A Tracker protects a controller's status from its own cache, as podcontrol's
// Expectations protect its pods. A pass writes the status only when it differs from the
// status of the object it read from the cache. But the cache shows a write a moment after
// the API server has made it, and a pass may start in that moment: with a predicate that
// drops status-only updates, the event of the last status write starts no pass, so
// nothing waits for it. Such a pass reads the object as it was before that write. When
// what the pass finds is what that stale copy says (a pod replaced since, a failure
// retried), it compares equal and writes nothing, and the API server keeps the last write
// until some other event comes: minutes, or never.
//
// So a controller records the resourceVersion each of its status writes returns (Wrote),
// and a pass asks whether the object it read predates the last one (Predates): if so, it
// reads the object again from the API server, and compares with that. The
// resourceVersions of one resource compare as numbers since Kubernetes 1.35 (KEP-5504):
// the larger one is the later state.
//
// The zero value is ready to use and safe for concurrent use.
type Tracker struct {
	mu   sync.Mutex
	last map[types.NamespacedName]string
}

// Wrote records a status write of obj, as the API server returned it (controller-runtime's
// Patch puts the answer into the object it was given): its resourceVersion is the write's.
func (w *Tracker) Wrote(obj metav1.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		w.last = map[types.NamespacedName]string{}
	}
	w.last[keyOf(obj)] = obj.GetResourceVersion()
}

// Predates reports whether obj, as a cache shows it, is older than the last status write
// recorded for it. A copy that shows the write, or a later state, says the cache has
// caught up: the record is dropped, as podcontrol's Expectations drop those the cache
// shows. No record means nothing to wait for (and after a restart, a cache listed since
// the last write). Versions that do not compare as numbers are trusted only when they are the very
// version written.
func (w *Tracker) Predates(obj metav1.Object) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := keyOf(obj)
	last, ok := w.last[key]
	if !ok {
		return false
	}
	older := obj.GetResourceVersion() != last
	if cmp, err := resourceversion.CompareResourceVersion(obj.GetResourceVersion(), last); err == nil {
		older = cmp < 0
	}
	if !older {
		delete(w.last, key)
	}
	return older
}

// keyOf is the key of obj's record: one per object, whatever its kind, as a controller
// tracks the status writes of one kind.
func keyOf(obj metav1.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}
