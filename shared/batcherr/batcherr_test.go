package batcherr

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestJoinCountsTheFailuresAndShowsTheFirst(t *testing.T) {
	g := NewWithT(t)
	g.Expect(Join(nil, 10)).To(Succeed(), "no failure is no error")

	denied := errors.New("node-b: admission webhook denied the request: " + strings.Repeat("policy ", 150))
	g.Expect(Join([]error{denied}, 10)).To(MatchError(denied.Error()), "one failure is reported as it is")

	var errs []error
	for i := 300; i > 0; i-- {
		errs = append(errs, fmt.Errorf("node-%03d: %w", i, denied))
	}
	err := Join(errs, 500)
	g.Expect(err).To(MatchError(HavePrefix("300 of 500 failed; first: node-001: ")),
		"the message counts the failures and shows the first by message")
	g.Expect(len(err.Error())).To(BeNumerically("<", 2048), "the message of 300 failures should be as long as one's")
	g.Expect(errors.Is(err, denied)).To(BeTrue(), "every error is still there for errors.Is")
	var each *Error
	g.Expect(errors.As(err, &each)).To(BeTrue())
	g.Expect(each.Unwrap()).To(HaveLen(300))
	g.Expect(errs[0]).To(MatchError(HavePrefix("node-300: ")), "Join leaves its input in its order")
}

// Calls run in parallel fail in any order: the same failures must make the same message,
// or each pass would write its status again.
func TestJoinMakesTheSameMessageInAnyOrder(t *testing.T) {
	g := NewWithT(t)
	a, b, c := errors.New("a: denied"), errors.New("b: denied"), errors.New("c: denied")
	want := Join([]error{a, b, c}, 3).Error()
	g.Expect(Join([]error{c, a, b}, 3)).To(MatchError(want))
	g.Expect(Join([]error{b, c, a}, 3)).To(MatchError(want))
}
