package main

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// testTaskLesson is testLesson with a fourth task, a test task: its TODO is in a
// _test.go file, and its row is its grade.
var testTaskLesson = index.Lesson{Number: 1, Title: "x", Folder: "lessons/01-x", Todos: append(slices.Clone(testLesson.Todos),
	index.Todo{ID: 4, Title: "Test the scale", File: "internal/controller/x_test.go", Line: 30, Hints: []string{"h1", "h2"},
		Tests: []string{"TestYourScale"}, Bugs: []index.Bug{{Name: "a", Bug: "one pod too many"}, {Name: "b", Bug: "never scales down"}}})}

var codeTasksDone = []string{"TestAPI", "TestScaleUp", "TestScaleUpTwice", "TestScaleDown"}

// A test task that misses bugs is failing, its row naming each bug it misses; whether
// its test passes on the learner's code does not count.
func TestATestTaskThatMissesBugsIsFailingNamingThem(t *testing.T) {
	resultFile := filepath.Join(t.TempDir(), "r")
	var out bytes.Buffer
	r := read(t, goTest(append(codeTasksDone, "TestYourScale"), ""))
	r.grades = map[int]result.Grade{4: {Task: 4, Total: 2, Caught: 1, Missed: []string{"never scales down"}}}
	err := check(r, &out, testTaskLesson, resultFile, "", "", false)
	failedSaying(t, err, out.String(),
		"3 of 4 tasks done",
		"failing  TODO(4) Test the scale",
		"your test catches 1 of 2 known bugs; it passes when:",
		"- never scales down",
		"A hint: make hint-1 T=4",
	)
	wantResult(t, resultFile, result.Result{Done: 3, Total: 4, Failed: false, First: 4, Shown: true})
}

// A test that fails on correct code is said to, with its failure.
func TestATestTaskThatFailsOnCorrectCodeSaysSo(t *testing.T) {
	var out bytes.Buffer
	r := read(t, goTest(codeTasksDone, ""))
	r.grades = map[int]result.Grade{4: {Task: 4, Total: 2, Broken: []string{"your test fails on correct code (the solution):", "x_test.go:12: want 3 pods"}}}
	err := check(r, &out, testTaskLesson, "", "", "", false)
	failedSaying(t, err, out.String(), "failing  TODO(4)", "your test fails on correct code", "x_test.go:12: want 3 pods")
}

// A test task is done when its test catches every bug; without a grade it did not run.
func TestATestTaskIsDoneWhenItCatchesEveryBug(t *testing.T) {
	r := read(t, goTest(codeTasksDone, ""))
	if st := states(testTaskLesson, r); st[3] != notRun {
		t.Errorf("without a grade, the test task is %s, want not run", st[3])
	}
	r.grades = map[int]result.Grade{4: {Task: 4, Total: 2, Caught: 2}}
	var out bytes.Buffer
	if err := check(r, &out, testTaskLesson, "", "", "", false); err != nil {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
}
