package main

import (
	"bytes"
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

func TestScopeKeepsThePackagesOfTheTasksUpToOne(t *testing.T) {
	dir := writeModule(t)
	for upto, want := range map[int]string{
		1: "./api/v1\n",
		2: "./api/v1\n./internal/controller\n",
		3: "./api/v1\n./internal/controller\n",
	} {
		var out bytes.Buffer
		if err := scope(&out, fuzzedLesson, dir, upto); err != nil {
			t.Fatalf("upto %d: %v", upto, err)
		}
		if out.String() != want {
			t.Errorf("upto %d: got\n%s\nwant\n%s", upto, out.String(), want)
		}
	}
}

func TestScopeNamesATestNoFileDeclares(t *testing.T) {
	dir := writeModule(t)
	if err := os.Remove(filepath.Join(dir, "api/v1/fuzz_test.go")); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err := scope(&out, fuzzedLesson, dir, 3)
	if err == nil || !strings.Contains(err.Error(), "task 3: no _test.go file under "+dir+" declares FuzzRoundTrip") {
		t.Errorf("err = %v, want one that names task 3 and FuzzRoundTrip", err)
	}
	if err := scope(&out, fuzzedLesson, dir, 4); err == nil || !strings.Contains(err.Error(), "the tasks 1 to 3 (got 4)") {
		t.Errorf("upto 4: err = %v, want one that says lesson 1 has tasks 1 to 3", err)
	}
}
