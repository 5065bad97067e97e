package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bug is told in a reviewer's words: names, calls, selectors and operators are code.
func TestABugToldInCodeIsFound(t *testing.T) {
	for bug, code := range map[string]string{
		"the ready count counts every pod, ready or not":            "",
		"the ImoocPod's Ready condition turns True too early":       "",
		"activePods keeps terminating pods":                         "activePods",
		"the pass forgets pod.DeletionTimestamp":                    "d.D",
		"`ReadyReplicas` is never reset":                            "`",
		"it calls Update() instead of a patch":                      "e(",
		"the count is off when ready == false":                      "==",
		"the status keeps {replicas: 0} after the first pass ended": "{",
	} {
		if got := codeInWords.FindString(bug); got != code {
			t.Errorf("code in %q: %q, want %q", bug, got, code)
		}
	}
}

// A mutant is made in its lesson's solution: its own edits, or those of the marked
// mistake it names; an edit whose lines are not in the solution, or a mutant without
// edits that names no mistake, is an error that names the mutant.
func TestAMutantIsMadeInTheSolution(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "solutions", "01-x", "pkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package pkg\n\nimport \"strings\"\n\nfunc F(s string) string {\n\ts = strings.TrimSpace(s)\n\treturn s\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "f.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	trim := editSpec{File: "pkg/f.go", Find: "s = strings.TrimSpace(s)\n"}
	l := lessonSpec{Number: 1, Folder: "01-x", Tasks: []taskSpec{{ID: 1, Mistakes: []mistakeSpec{{Name: "no-trim", Says: "x", Edits: []editSpec{trim}}}}}}
	tr := &track{name: "x", manifest: &manifest{Operator: "X", Lessons: []lessonSpec{l}}}

	for _, mu := range []mutantSpec{{Name: "no-trim", Bug: "spaces stay"}, {Name: "own", Bug: "spaces stay", Edits: []editSpec{trim}}} {
		files, err := tr.makeMutant(root, &tr.manifest.Lessons[0], mu)
		if err != nil {
			t.Fatalf("mutant %s: %v", mu.Name, err)
		}
		got := files["pkg/f.go"]
		if strings.Contains(got, "TrimSpace") || strings.Contains(got, `"strings"`) {
			t.Errorf("mutant %s: the line and its import should be gone:\n%s", mu.Name, got)
		}
	}
	for _, mu := range []mutantSpec{
		{Name: "nowhere", Bug: "b"},
		{Name: "missing", Bug: "b", Edits: []editSpec{{File: "pkg/f.go", Find: "return nil\n"}}},
	} {
		if _, err := tr.makeMutant(root, &tr.manifest.Lessons[0], mu); err == nil || !strings.Contains(err.Error(), mu.Name) {
			t.Errorf("mutant %s: error %v, want one that names it", mu.Name, err)
		}
	}
}

// A test task's mutants each have a name and a bug, listed once.
func TestAMutantNeedsANameAndABug(t *testing.T) {
	for _, c := range []struct {
		mutants []mutantSpec
		want    string
	}{
		{[]mutantSpec{{Name: "a", Bug: "b"}, {Name: "c", Bug: "d"}}, ""},
		{[]mutantSpec{{Name: "a b", Bug: "b"}}, "one word"},
		{[]mutantSpec{{Name: "a", Bug: " "}}, "bug:"},
		{[]mutantSpec{{Name: "a", Bug: "b"}, {Name: "a", Bug: "c"}}, "twice"},
		{[]mutantSpec{{Name: "a", Bug: "b", Edits: []editSpec{{File: "f.go"}}}}, "lines to find"},
	} {
		err := checkMutants(c.mutants, "lesson 1, task 1")
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("checkMutants(%+v) = %v, want an error saying %q", c.mutants, err, c.want)
		}
	}
}
