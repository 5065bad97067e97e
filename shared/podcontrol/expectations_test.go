package podcontrol

import (
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

var podsMade int

// pod returns a pod as the API server would: its UID is its own, whatever its name.
func pod(name string) corev1.Pod {
	podsMade++
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(fmt.Sprintf("uid-%d", podsMade))}}
}

func owner(name, uid string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(uid)}
}

// controlledBy returns pod in owner's namespace, with owner as its controller.
func controlledBy(owner *metav1.ObjectMeta, pod corev1.Pod) corev1.Pod {
	pod.Namespace = owner.Namespace
	pod.OwnerReferences = []metav1.OwnerReference{{Name: owner.Name, UID: owner.UID, Controller: ptr.To(true)}}
	return pod
}

func TestExpectationsWaitForCreatesToShow(t *testing.T) {
	g := NewWithT(t)
	web := owner("web", "1")
	var e Expectations
	g.Expect(e.Pending(web, nil)).To(BeZero(), "nothing recorded, nothing to wait for")

	a, b := pod("web-a"), pod("web-b")
	e.ExpectCreate(web, &a)
	e.ExpectCreate(web, &b)
	g.Expect(e.Pending(web, nil)).To(BeNumerically(">", 0), "the cache shows neither create")
	g.Expect(e.Pending(web, []corev1.Pod{a})).To(BeNumerically(">", 0), "the cache shows one of two")
	g.Expect(e.Pending(web, []corev1.Pod{b})).To(BeZero(), "each create was seen once")
	g.Expect(e.Pending(web, nil)).To(BeZero(), "satisfied Expectations are forgotten")
}

func TestExpectationsWaitForDeletesToShow(t *testing.T) {
	g := NewWithT(t)
	web := owner("web", "1")
	var e Expectations
	a, b := pod("web-a"), pod("web-b")
	e.ExpectDelete(web, &a)
	e.ExpectDelete(web, &b)

	terminating := *b.DeepCopy()
	terminating.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	g.Expect(e.Pending(web, []corev1.Pod{a, b})).To(BeNumerically(">", 0))
	g.Expect(e.Pending(web, []corev1.Pod{a, terminating})).To(BeNumerically(">", 0),
		"web-a is still in the cache")
	g.Expect(e.Pending(web, []corev1.Pod{terminating})).To(BeZero(),
		"a pod gone or terminating counts as deleted")
}

// A MyDaemonSet's pods are named after their nodes: the pod that replaces a deleted one
// has its name. Once the cache shows the new pod, the old one is gone.
func TestADeletedPodWhoseNameCameBackCountsAsDeleted(t *testing.T) {
	g := NewWithT(t)
	agent := owner("agent", "1")
	var e Expectations
	old := pod("agent-node-a")
	e.ExpectDelete(agent, &old)
	replacement := pod("agent-node-a")
	g.Expect(e.Pending(agent, []corev1.Pod{replacement})).To(BeZero(),
		"the cache shows another pod of that name, not the one deleted: the delete is done")

	e.ExpectCreate(agent, &replacement)
	g.Expect(e.Pending(agent, []corev1.Pod{old})).To(BeNumerically(">", 0),
		"the cache shows the old pod of that name, not the one created")
}

func TestExpectationsTimeOut(t *testing.T) {
	g := NewWithT(t)
	web := owner("web", "1")
	now := time.Unix(1000, 0)
	e := Expectations{now: func() time.Time { return now }, timeout: time.Minute}
	a := pod("web-a")
	e.ExpectCreate(web, &a)

	now = now.Add(40 * time.Second)
	g.Expect(e.Pending(web, nil)).To(Equal(20*time.Second), "the wait is what is left of the timeout")
	now = now.Add(20 * time.Second)
	g.Expect(e.Pending(web, nil)).To(BeZero(), "a create the cache never shows stops blocking after the timeout")
}

// A pod deleted before the cache saw it created never shows: the owner waits for it
// until the timeout, and no longer than a minute, however often it expects more.
func TestAPodTheCacheNeverShowsStallsItsOwnerAMinuteAtMost(t *testing.T) {
	g := NewWithT(t)
	web := owner("web", "1")
	now := time.Unix(1000, 0)
	e := Expectations{now: func() time.Time { return now }}
	for range 10 {
		p := pod("web")
		e.ExpectCreate(web, &p)
		g.Expect(e.Pending(web, nil)).To(BeNumerically("<=", time.Minute), "the wait")
		now = now.Add(6 * time.Second)
	}
	g.Expect(e.Pending(web, nil)).To(BeZero(), "a minute after the first expectation nothing blocks")
}

// A pod deleted right after its create, before a pass listed it, never shows in a list:
// its delete event, seen through the watch's predicate, is what frees its owner.
func TestAPodDeletedBeforeAPassSawItDoesNotStallItsOwner(t *testing.T) {
	g := NewWithT(t)
	web := owner("web", "1")
	var e Expectations
	a, b := controlledBy(web, pod("web-a")), controlledBy(web, pod("web-b"))
	e.ExpectCreate(web, &a)
	e.ExpectCreate(web, &b)
	g.Expect(e.DeletionObserver().Delete(event.DeleteEvent{Object: &a})).To(BeTrue(), "a deletion still starts a pass")
	g.Expect(e.Pending(web, nil)).To(BeNumerically(">", 0), "web-b is neither listed nor deleted")
	e.ObserveDeleted(&b)
	g.Expect(e.Pending(web, nil)).To(BeZero(), "both pods were seen deleted")
}

// A deletion clears only what its pod's controller expected: not another owner's
// record, nor that of a new owner of the same name, and it leaves no record behind.
func TestADeletionClearsOnlyItsControllersRecord(t *testing.T) {
	g := NewWithT(t)
	first, second, db := owner("web", "1"), owner("web", "2"), owner("db", "3")
	var e Expectations
	a, b := pod("web-a"), controlledBy(db, pod("db-a"))
	e.ExpectCreate(second, &a)
	e.ExpectCreate(db, &a)
	e.ObserveDeleted(new(controlledBy(first, a)))
	e.ObserveDeleted(new(controlledBy(second, pod("web-b"))))
	e.ObserveDeleted(new(pod("orphan")))
	g.Expect(e.Pending(second, nil)).To(BeNumerically(">", 0), "the pod of an earlier owner of that name")
	g.Expect(e.Pending(db, nil)).To(BeNumerically(">", 0), "a pod of another owner")

	e.Forget(keyOf(db))
	e.ObserveDeleted(&b)
	g.Expect(e.byOwner).NotTo(HaveKey(keyOf(db)), "the pods of a deleted owner go after it")
}

func TestExpectationsAreKeptPerOwner(t *testing.T) {
	g := NewWithT(t)
	web, db := owner("web", "1"), owner("db", "2")
	var e Expectations
	a := pod("web-a")
	e.ExpectCreate(web, &a)
	g.Expect(e.Pending(db, nil)).To(BeZero())
	e.Forget(types.NamespacedName{Namespace: "ns", Name: "web"})
	g.Expect(e.Pending(web, nil)).To(BeZero(), "a deleted owner's Expectations are dropped")
}

// An owner deleted and created again under the same name is another owner (another
// UID). A pass may never see the first one gone (the work queue merges the two events),
// so nothing calls Forget: the new one must not wait for what the first one expected,
// and what it expects itself must not be lost either.
func TestAnOwnerCreatedAgainStartsWithoutExpectations(t *testing.T) {
	g := NewWithT(t)
	first, second := owner("web", "1"), owner("web", "2")
	var e Expectations
	a := pod("web-a")
	e.ExpectCreate(first, &a)
	g.Expect(e.Pending(second, nil)).To(BeZero(), "the second owner waits for the first one's pod")
	g.Expect(e.Pending(first, nil)).To(BeZero(), "the first one's expectations are gone")

	e.ExpectCreate(first, &a)
	b := pod("web-b")
	e.ExpectCreate(second, &b)
	g.Expect(e.Pending(second, []corev1.Pod{a})).To(BeNumerically(">", 0),
		"the second owner's own create replaces the first one's record and is waited for")
}
