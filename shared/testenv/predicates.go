package testenv

import (
	"testing"

	"github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// An UpdateCase is one change a watched object may go through, and whether the
// predicate of the watch should let that update start a pass. Passes and Ignores make
// one.
type UpdateCase[T client.Object] struct {
	Name   string
	Change func(T)
	Passes bool
}

// Passes is the case of an update, named name, that makes change and must start a pass.
func Passes[T client.Object](name string, change func(T)) UpdateCase[T] {
	return UpdateCase[T]{Name: name, Change: change, Passes: true}
}

// Ignores is the case of an update, named name, that makes change and must start no
// pass: it changes nothing the controller reads.
func Ignores[T client.Object](name string, change func(T)) UpdateCase[T] {
	return UpdateCase[T]{Name: name, Change: change, Passes: false}
}

// ExpectPredicate checks p against each case, in a subtest named after it: it builds the
// old and the new object with fresh, makes the case's change to the new one, and expects
// p to pass the update exactly when the case says so. It then checks that p passes the
// create and the delete of an object: a predicate that dropped one would leave the
// controller blind to a new object, or to one that is gone, until some later event.
func ExpectPredicate[T client.Object](t *testing.T, p predicate.Predicate, fresh func() T, cases []UpdateCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			g := gomega.NewWithT(t)
			oldObj, newObj := fresh(), fresh()
			tc.Change(newObj)
			g.Expect(p.Update(event.UpdateEvent{ObjectOld: oldObj, ObjectNew: newObj})).To(gomega.Equal(tc.Passes),
				"should the update %q start a pass?", tc.Name)
		})
	}
	t.Run("creates and deletes always pass", func(t *testing.T) {
		g := gomega.NewWithT(t)
		g.Expect(p.Create(event.CreateEvent{Object: fresh()})).To(gomega.BeTrue())
		g.Expect(p.Delete(event.DeleteEvent{Object: fresh()})).To(gomega.BeTrue())
	})
}
