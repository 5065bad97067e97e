package podcontrol

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
	var e Expectations
	g.Expect(e.Pending(owner, nil)).To(BeZero(), "nothing recorded, nothing to wait for")

	e.ExpectCreate(owner, "web-a")
	e.ExpectCreate(owner, "web-b")
	g.Expect(e.Pending(owner, nil)).To(BeNumerically(">", 0), "the cache shows neither create")
	g.Expect(e.Pending(owner, []corev1.Pod{pod("web-a")})).To(BeNumerically(">", 0), "the cache shows one of two")
	g.Expect(e.Pending(owner, []corev1.Pod{pod("web-b")})).To(BeZero(), "each create was seen once")
	g.Expect(e.Pending(owner, nil)).To(BeZero(), "satisfied Expectations are forgotten")
}

func TestExpectationsWaitForDeletesToShow(t *testing.T) {
	g := NewWithT(t)
	owner := types.NamespacedName{Namespace: "ns", Name: "web"}
	var e Expectations
	e.ExpectDelete(owner, "web-a")
	e.ExpectDelete(owner, "web-b")

	terminating := pod("web-b")
	terminating.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	g.Expect(e.Pending(owner, []corev1.Pod{pod("web-a"), pod("web-b")})).To(BeNumerically(">", 0))
	g.Expect(e.Pending(owner, []corev1.Pod{pod("web-a"), terminating})).To(BeNumerically(">", 0),
		"web-a is still in the cache")
	g.Expect(e.Pending(owner, []corev1.Pod{terminating})).To(BeZero(),
		"a pod gone or terminating counts as deleted")
}

func TestExpectationsTimeOut(t *testing.T) {
	g := NewWithT(t)
	owner := types.NamespacedName{Namespace: "ns", Name: "web"}
	now := time.Unix(1000, 0)
	e := Expectations{now: func() time.Time { return now }, timeout: time.Minute}
	e.ExpectCreate(owner, "web-a")

	now = now.Add(40 * time.Second)
	g.Expect(e.Pending(owner, nil)).To(Equal(20*time.Second), "the wait is what is left of the timeout")
	now = now.Add(20 * time.Second)
	g.Expect(e.Pending(owner, nil)).To(BeZero(), "a create the cache never shows stops blocking after the timeout")
}

func TestExpectationsAreKeptPerOwner(t *testing.T) {
	g := NewWithT(t)
	web := types.NamespacedName{Namespace: "ns", Name: "web"}
	db := types.NamespacedName{Namespace: "ns", Name: "db"}
	var e Expectations
	e.ExpectCreate(web, "web-a")
	g.Expect(e.Pending(db, nil)).To(BeZero())
	e.Forget(web)
	g.Expect(e.Pending(web, nil)).To(BeZero(), "a deleted owner's Expectations are dropped")
}
