package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func pod(name string) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func TestExpectationsWaitForCreatesToShow(t *testing.T) {
	g := NewWithT(t)
	owner := types.NamespacedName{Namespace: "ns", Name: "web"}
	var e expectations
	g.Expect(e.pending(owner, nil)).To(BeZero(), "nothing recorded, nothing to wait for")

	e.expectCreate(owner, "web-a")
	e.expectCreate(owner, "web-b")
	g.Expect(e.pending(owner, nil)).To(BeNumerically(">", 0), "the cache shows neither create")
	g.Expect(e.pending(owner, []corev1.Pod{pod("web-a")})).To(BeNumerically(">", 0), "the cache shows one of two")
	g.Expect(e.pending(owner, []corev1.Pod{pod("web-b")})).To(BeZero(), "each create was seen once")
	g.Expect(e.pending(owner, nil)).To(BeZero(), "satisfied expectations are forgotten")
}

func TestExpectationsWaitForDeletesToShow(t *testing.T) {
	g := NewWithT(t)
	owner := types.NamespacedName{Namespace: "ns", Name: "web"}
	var e expectations
	e.expectDelete(owner, "web-a")
	e.expectDelete(owner, "web-b")

	terminating := pod("web-b")
	terminating.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	g.Expect(e.pending(owner, []corev1.Pod{pod("web-a"), pod("web-b")})).To(BeNumerically(">", 0))
	g.Expect(e.pending(owner, []corev1.Pod{pod("web-a"), terminating})).To(BeNumerically(">", 0),
		"web-a is still in the cache")
	g.Expect(e.pending(owner, []corev1.Pod{terminating})).To(BeZero(),
		"a pod gone or terminating counts as deleted")
}

func TestExpectationsTimeOut(t *testing.T) {
	g := NewWithT(t)
	owner := types.NamespacedName{Namespace: "ns", Name: "web"}
	now := time.Unix(1000, 0)
	e := expectations{now: func() time.Time { return now }, timeout: time.Minute}
	e.expectCreate(owner, "web-a")

	now = now.Add(40 * time.Second)
	g.Expect(e.pending(owner, nil)).To(Equal(20*time.Second), "the wait is what is left of the timeout")
	now = now.Add(20 * time.Second)
	g.Expect(e.pending(owner, nil)).To(BeZero(), "a create the cache never shows stops blocking after the timeout")
}

func TestExpectationsAreKeptPerOwner(t *testing.T) {
	g := NewWithT(t)
	web := types.NamespacedName{Namespace: "ns", Name: "web"}
	db := types.NamespacedName{Namespace: "ns", Name: "db"}
	var e expectations
	e.expectCreate(web, "web-a")
	g.Expect(e.pending(db, nil)).To(BeZero())
	e.forget(web)
	g.Expect(e.pending(web, nil)).To(BeZero(), "a deleted owner's expectations are dropped")
}
