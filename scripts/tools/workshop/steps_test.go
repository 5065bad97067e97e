package main

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// Two steps that run at once are of two lessons: the steps go in order of how far into
// its lesson each one is.
func TestStepOrderInterleavesTheLessons(t *testing.T) {
	got := stepOrder([]lessonRow{{folder: "a", tasks: 2}, {folder: "b", tasks: 4}})
	var order []string
	for _, s := range got {
		order = append(order, s.folder+string(rune('0'+s.solved)))
	}
	if want := "b0 a0 b1 b2 a1 b3"; strings.Join(order, " ") != want {
		t.Errorf("steps in the order %s, want %s", strings.Join(order, " "), want)
	}
}

// No more than JOBS steps run at a time, and every one runs.
func TestInParallelRunsJOBSAtATime(t *testing.T) {
	t.Setenv("JOBS", "3")
	var running, most, ran atomic.Int32
	inParallel(12, func(int) {
		now := running.Add(1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
		running.Add(-1)
		ran.Add(1)
	})
	if ran.Load() != 12 || most.Load() != 3 {
		t.Errorf("ran %d of 12, at most %d at a time; want 12, 3 at a time", ran.Load(), most.Load())
	}
}

func TestAMistakeIsCaughtOnlyByItsOwnRowSayingItsWords(t *testing.T) {
	m := mistakeRow{folder: "02-x", task: 3, name: "kept", says: "the pass trusted a stale copy"}
	row := func(task int, lines ...string) result.Result {
		return result.Result{Done: task - 1, Total: 5, Failed: true, First: task, Failure: &result.Failure{Task: task, Lines: lines}}
	}
	for _, tc := range []struct {
		name string
		res  result.Result
		want string // "" when caught
	}{
		{"its row, its words", row(3, "TestStale: the pass trusted", "  a stale copy of the ImoocPod"), ""},
		{"its row, other words", row(3, "TestStale: expected 2 pods"), `task 3's row does not say "the pass trusted a stale copy"`},
		{"an earlier row", row(2, "TestStale: the pass trusted a stale copy"), "task 3's row is not the first failing one: task 2's is"},
		{"a test of no task", result.Result{Failed: true, Failure: &result.Failure{Untied: true, Lines: []string{"A test of no task fails:", "the pass trusted a stale copy"}}},
			"task 3's row is not the first failing one"},
		{"nothing fails", result.Result{Done: 5, Total: 5}, "no test fails (5 of 5 tasks done)"},
		{"a package fails outside its tests", result.Result{Failed: true, Failure: &result.Failure{Lines: []string{"panic: the pass trusted a stale copy"}}}, "no test fails"},
	} {
		got := m.caught(tc.res)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: caught says %q, want %q", tc.name, got, tc.want)
		}
	}
	// A mistake of no task: any first failure that shows its words, a row's or a test
	// of no task's.
	m.task = 0
	for _, res := range []result.Result{
		row(4, "the pass trusted a stale copy"),
		{Failed: true, Failure: &result.Failure{Untied: true, Lines: []string{"A test of no task fails:", "the pass trusted a stale copy"}}},
	} {
		if got := m.caught(res); got != "" {
			t.Errorf("a mistake of no task with %+v: caught says %q, want it caught", res.Failure, got)
		}
	}
}
