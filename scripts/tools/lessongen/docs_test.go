package main

import (
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

func TestDocLineBringsAChecklistInLineWithTheLesson(t *testing.T) {
	l := index.Lesson{Number: 7, Folder: "lessons/07-pool", Todos: []index.Todo{
		{ID: 1, Title: "Give the pool a status.", File: "api/v1/pool_types.go", Line: 113},
		{ID: 2, Title: "Record events.", File: "cmd/main.go", Line: 43},
	}}
	tests := map[string]bool{"TestEvents": true}
	for _, tc := range []struct {
		line, want, problem string
	}{
		{"  not run  TODO(2) Record events.           cmd/main.go:43", "", ""},
		{"  not run  TODO(2) Record events.           cmd/main.go:44",
			"  not run  TODO(2) Record events.           cmd/main.go:43", "the checklist row of TODO(2)"},
		{"  failing  TODO(2) Record the events        cmd/main.go:43",
			"  failing  TODO(2) Record events.           cmd/main.go:43", "the checklist row of TODO(2)"},
		{"  not run  TODO(3) Something else.  x.go:1", "", "lesson 7 has no task 3"},
		{"lessons/07-pool: 0 of 9 tasks done", "lessons/07-pool: 0 of 2 tasks done", "lesson 7 has 2 tasks"},
		{"warning: 1 of 9 tasks done; the first failure, above", "warning: 1 of 2 tasks done; the first failure, above", "lesson 7 has 2 tasks"},
		{"lessons/08-other: 0 of 9 tasks done", "", ""},
		{"`TestEvents` fails, as do the other `TestPool...` tests.", "", ""},
		{"*Caught by* `TestEventz`.", "", "TestEventz is not a test of solution 07"},
		{"`TestMain` starts the API server.", "", ""},
	} {
		want, problem := docLine(l, tc.line, tests)
		if want != tc.want || !strings.Contains(problem, tc.problem) || (tc.problem == "") != (problem == "") {
			t.Errorf("docLine(%q) = %q, %q; want %q and a problem with %q", tc.line, want, problem, tc.want, tc.problem)
		}
	}
}
