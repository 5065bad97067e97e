// Package earlier holds a test of no task, which fails: an earlier lesson's behaviour
// the learner broke, for todos' tests.
package earlier

import "testing"

func TestAnEarlierLessonsBehaviour(t *testing.T) { t.Error("the pods should be owned") }
