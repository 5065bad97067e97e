package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// A run that keeps a memo grades a test once: the second grading of the same test, with
// the same bugs, reads the first one's grade (here, that it does not build: the grader's
// checkout has no solution). Another test, other bugs, added files, another lesson or no
// memo at all grade again.
func TestAGradingKeptInTheRunsMemoIsNotDoneAgain(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(gradeMemoEnv, filepath.Join(dir, "memo"))
	learner := filepath.Join(dir, "x_test.go")
	if err := os.WriteFile(learner, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := grader{root: filepath.Join(dir, "no-checkout"), lesson: index.Lesson{Number: 2, Folder: "lessons/02-x"}, timeout: time.Minute}
	task := index.Todo{ID: 9, File: "internal/x/x_test.go"}
	bugs := []mutant{{Task: 9, Name: "off-by-one", Files: map[string]string{"internal/x/x.go": "package x\n"}}}

	first, timing, err := g.grade(task, learner, nil, bugs)
	if err != nil || timing.kept || len(first.Broken) == 0 {
		t.Fatalf("the first grading, in a checkout without the solution, gave %+v, %v, %v; want a test that does not build", first, timing, err)
	}
	second, timing, err := g.grade(task, learner, nil, bugs)
	if err != nil || !timing.kept || !slices.Equal(second.Broken, first.Broken) {
		t.Fatalf("the same grading again gave %+v, %v, %v; want the first one's grade, kept", second, timing, err)
	}
	memo, err := g.memoFile(task, learner, nil, bugs)
	if err != nil {
		t.Fatal(err)
	}

	other := map[string]func() (string, error){
		"another test": func() (string, error) {
			changed := filepath.Join(dir, "y_test.go")
			if err := os.WriteFile(changed, []byte("package x // changed\n"), 0o644); err != nil {
				return "", err
			}
			return g.memoFile(task, changed, nil, bugs)
		},
		"other bugs": func() (string, error) { return g.memoFile(task, learner, nil, bugs[:0]) },
		"added files": func() (string, error) {
			return g.memoFile(task, learner, map[string]string{"internal/x/zz_test.go": "package x\n"}, bugs)
		},
		"another lesson": func() (string, error) {
			g := g
			g.lesson.Number = 3
			return g.memoFile(task, learner, nil, bugs)
		},
	}
	for name, file := range other {
		if got, err := file(); err != nil || got == memo {
			t.Errorf("%s: kept as %s (%v), the first grading's", name, got, err)
		}
	}
	t.Setenv(gradeMemoEnv, "")
	if got, err := g.memoFile(task, learner, nil, bugs); got != "" || err != nil {
		t.Errorf("without %s, a grading is kept in %q (%v)", gradeMemoEnv, got, err)
	}
}
