// Package batcherr holds the error of a batch of calls of which some failed: a message as
// short as one error's, however many failed, and every error kept for errors.Is and
// errors.As. Pod creates in growing batches, patches of a pool's nodes and checks of a
// set's nodes all report their failures with it.
package batcherr

import (
	"fmt"
	"slices"
	"strings"
)

// Error is the error of a batch of total calls of which some failed. Its message counts
// the failures and shows only the first, "3 of 40 failed; first: ...": the messages of
// a few hundred failed pod writes, joined, would make kilobytes. A pass puts its error
// in a status condition, whose message the API server refuses past 32 KiB: with the
// status patch refused, the status would stop changing just when it has most to say.
// Each error is still there for errors.Is and errors.As.
type Error struct {
	errs  []error
	total int
}

// Join returns the Error of total calls of which errs failed, or nil when none failed.
// The errors are sorted by message: calls run in parallel finish in any order, and the
// same failures must make the same message on every pass, or each pass would write the
// status again.
func Join(errs []error, total int) error {
	if len(errs) == 0 {
		return nil
	}
	sorted := slices.Clone(errs)
	slices.SortStableFunc(sorted, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return &Error{errs: sorted, total: total}
}

func (e *Error) Error() string {
	if len(e.errs) == 1 {
		return e.errs[0].Error()
	}
	return fmt.Sprintf("%d of %d failed; first: %v", len(e.errs), e.total, e.errs[0])
}

func (e *Error) Unwrap() []error { return e.errs }
