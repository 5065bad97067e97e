package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// A lesson whose last task is checked by a fuzz target as well as a test.
var fuzzedLesson = index.Lesson{Number: 1, Folder: "lessons/01-x", Todos: []index.Todo{
	testLesson.Todos[0],
	testLesson.Todos[1],
	{ID: 3, Title: "Convert", Tests: []string{"TestScaleDown", "FuzzRoundTrip"}},
}}

// A module laid out like a lesson: task 1's test in the API package, tasks 2 and 3's in
// the controller's (task 3's fuzz target in the API package); a test no task names, and
// one under testdata, which go test never builds.
func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"api/v1/x_test.go":                       "package v1\n\nfunc TestAPI(t *testing.T) {}\n",
		"api/v1/fuzz_test.go":                    "package v1\n\nfunc FuzzRoundTrip(f *testing.F) {}\n",
		"internal/controller/x_test.go":          "package controller\n\nfunc TestScaleUp(t *testing.T) {}\n\nfunc TestScaleUpTwice(t *testing.T) {}\n",
		"internal/controller/down_test.go":       "package controller\n\nfunc TestScaleDown(t *testing.T) {}\n\nfunc TestOfNoTask(t *testing.T) {}\n",
		"internal/controller/testdata/x_test.go": "package x\n\nfunc TestAPI(t *testing.T) {}\n",
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A check of the first tasks builds only their packages and runs only their tests; a
// check of every task runs the others after, in the packages that hold them.
func TestPlanRunsTheTasksTestsFirstAndTheOthersOnlyAfterTheLastTask(t *testing.T) {
	dir := writeModule(t)
	args := []string{"go", "test", "-json"}
	for _, tt := range []struct {
		upto        int
		first, rest string
	}{
		{1, "go test -json -run ^(TestAPI)$ ./api/v1", ""},
		{2, "go test -json -run ^(TestAPI|TestScaleUp|TestScaleUpTwice)$ ./api/v1 ./internal/controller", ""},
		{3, "go test -json -run ^(TestAPI|TestScaleUp|TestScaleUpTwice|TestScaleDown|FuzzRoundTrip)$ ./api/v1 ./internal/controller",
			"go test -json -skip ^(TestAPI|TestScaleUp|TestScaleUpTwice|TestScaleDown|FuzzRoundTrip)$ ./internal/controller"},
	} {
		p, err := planRuns(fuzzedLesson, dir, tt.upto)
		if err != nil {
			t.Fatalf("upto %d: %v", tt.upto, err)
		}
		if got := strings.Join(p.firstRun(args), " "); got != tt.first {
			t.Errorf("upto %d: first run\n  %s\nwant\n  %s", tt.upto, got, tt.first)
		}
		rest := ""
		if len(p.others) > 0 {
			rest = strings.Join(p.othersRun(args), " ")
		}
		if rest != tt.rest {
			t.Errorf("upto %d: the others' run\n  %q\nwant\n  %q", tt.upto, rest, tt.rest)
		}
	}
}

func TestPlanNamesATestNoFileDeclares(t *testing.T) {
	dir := writeModule(t)
	if err := os.Remove(filepath.Join(dir, "api/v1/fuzz_test.go")); err != nil {
		t.Fatal(err)
	}
	_, err := planRuns(fuzzedLesson, dir, 3)
	if err == nil || !strings.Contains(err.Error(), "task 3: no _test.go file under "+dir+" declares FuzzRoundTrip") {
		t.Errorf("err = %v, want one that names task 3 and FuzzRoundTrip", err)
	}
	if _, err := planRuns(fuzzedLesson, dir, 4); err == nil || !strings.Contains(err.Error(), "the tasks 1 to 3 (got 4)") {
		t.Errorf("upto 4: err = %v, want one that says lesson 1 has tasks 1 to 3", err)
	}
}

// A test task's test is graded against the solution, not run as a task's test on the
// learner's code: the first run leaves it out, and it runs with the others once every
// task is checked.
func TestPlanLeavesATestTasksTestToTheOthers(t *testing.T) {
	dir := writeModule(t)
	lesson := index.Lesson{Number: 1, Folder: "lessons/01-x", Todos: []index.Todo{
		testLesson.Todos[0],
		{ID: 2, Title: "Test the scale-down", File: "internal/controller/down_test.go", Tests: []string{"TestScaleDown"}},
	}}
	p, err := planRuns(lesson, dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"go", "test"}
	if got, want := strings.Join(p.firstRun(args), " "), "go test -run ^(TestAPI)$ ./api/v1"; got != want {
		t.Errorf("first run: %s\nwant %s", got, want)
	}
	if got, want := strings.Join(p.othersRun(args), " "), "go test -skip ^(TestAPI)$ ./api/v1 ./internal/controller"; got != want {
		t.Errorf("the others' run: %s\nwant %s", got, want)
	}
}
