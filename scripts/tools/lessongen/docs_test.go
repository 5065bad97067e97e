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

func TestCatchDriftsHoldsThePageToTheMarkedMistakes(t *testing.T) {
	says := map[string]string{"event-per-node": "should be told by one event"}
	page := func(common, other string) string {
		return "# Lesson\n\n## Common mistakes\n\n" + common + "\n\n## Going further\n\n### Other pitfalls\n\n" + other + "\n\n## Next\n"
	}
	for _, tc := range []struct {
		name, src, problem string
	}{
		{"a catch the proof keeps, quoted at length",
			page("- **An event per node.** *Caught by* `TestEvents` (\"20 nodes\n  should be told by one event that counts them\").", "- **Slow.**"), ""},
		{"a marked mistake the page leaves out",
			page("- **Something else.**", ""), "event-per-node is caught"},
		{"a catch no marked mistake makes",
			page("- **An event per node.** *Caught by* `TestEvents` (\"should be told by one event\").\n- **A loop.** *Caught by* `TestLoop` (\"\"not found\" is no error\").", ""),
			`"\"not found\" is no error"`},
		{"a caught mistake among the pitfalls no check catches",
			page("- *Caught by* `TestEvents` (\"should be told by one event\")", "- **Also** should be told by one event"), "Going further quotes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantDrift(t, "catchDrifts", catchDrifts("docs/lesson-07.md", tc.src, says), tc.problem)
		})
	}
}

func TestSampleDriftsHoldsAnExcerptToItsTest(t *testing.T) {
	files := map[string][]byte{"solutions/07-pool/internal/controller/events_test.go": []byte(`package controller

import "testing"

func TestEvents(t *testing.T) {
	t.Run("a join", func(t *testing.T) {
		t.Fatal("one join should emit one event")
	})
}
`)}
	for _, tc := range []struct {
		name, excerpt, problem string
	}{
		{"the line of the assertion", "--- FAIL: TestEvents (0.30s)\n    events_test.go:7:\n        one join", ""},
		{"a subtest's line", "--- FAIL: TestEvents (0.30s)\n    --- FAIL: TestEvents/a_join (0.29s)\n        events_test.go:7:", ""},
		{"a line the file moved", "--- FAIL: TestEvents […]\n    events_test.go:38:", "events_test.go:38 is not in TestEvents (lines 5-9)"},
		{"a test the file does not have", "--- FAIL: TestEventz (0.30s)\n    events_test.go:7:", "TestEventz failing in events_test.go, which has no such test"},
		{"another file", "--- FAIL: TestEvents (0.30s)\n    status_test.go:7:", "which has no such test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			drifts, err := sampleDrifts("docs/lesson-07.md", strings.Split(tc.excerpt, "\n"), files)
			if err != nil {
				t.Fatal(err)
			}
			wantDrift(t, "sampleDrifts", drifts, tc.problem)
		})
	}
}

// wantDrift fails the test unless what (the function that found drifts) found a problem
// that says problem, or, with problem "", none at all.
func wantDrift(t *testing.T, what string, drifts []docDrift, problem string) {
	t.Helper()
	var got []string
	for _, d := range drifts {
		got = append(got, d.String())
	}
	if (problem == "") != (len(got) == 0) || (problem != "" && !strings.Contains(strings.Join(got, "\n"), problem)) {
		t.Errorf("%s = %q; want a problem with %q", what, got, problem)
	}
}
