package statuswrite

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// at returns the object web as a cache would show it at resourceVersion rv.
func at(rv string) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "1", ResourceVersion: rv}
}

func TestTrackerTellACopyFromBeforeTheLastWrite(t *testing.T) {
	g := NewWithT(t)
	var w Tracker
	g.Expect(w.Predates(at("10"))).To(BeFalse(), "nothing written, nothing to be older than")

	w.Wrote(at("12"))
	g.Expect(w.Predates(at("10"))).To(BeTrue(), "a copy from before the write")
	g.Expect(w.Predates(at("9"))).To(BeTrue(), "versions compare as numbers, not as strings")
	g.Expect(w.Predates(&metav1.ObjectMeta{Namespace: "ns", Name: "db", ResourceVersion: "1"})).To(BeFalse(),
		"each object has its own record")
	g.Expect(w.Predates(at("12"))).To(BeFalse(), "the copy the write returned")
	g.Expect(w.Predates(at("10"))).To(BeFalse(), "once the cache has shown the write, its record is dropped")

	w.Wrote(at("20"))
	g.Expect(w.Predates(at("100"))).To(BeFalse(), "a later copy: someone wrote after us, and the cache shows it")
}

func TestTrackerTrustOnlyTheVersionWrittenWhenVersionsDoNotCompare(t *testing.T) {
	g := NewWithT(t)
	var w Tracker
	w.Wrote(at("b"))
	g.Expect(w.Predates(at("c"))).To(BeTrue(), "any other version may be older")
	g.Expect(w.Predates(at("b"))).To(BeFalse(), "the very version written")
}
