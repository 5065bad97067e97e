package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

func TestTheCapstoneSolutionsProjectIsTheSpecs(t *testing.T) {
	if err := checkCapstoneProject(filepath.Join("..", "..", "..", "solutions", "15-capstone"), 15); err != nil {
		t.Fatal(err)
	}
}

// A learner's PROJECT that departs from the spec is told so before anything runs, each
// departure named with the command that gives the spec's.
func TestACapstoneProjectThatDepartsFromTheSpecIsNamedFirst(t *testing.T) {
	for _, c := range []struct {
		name, project string
		want          []string
	}{
		{"no PROJECT", "", []string{"has no PROJECT file", "kubebuilder init"}},
		{"another group and a namespaced kind", `domain: example.com
layout:
- go.kubebuilder.io/v4
resources:
- api:
    crdVersion: v1
    namespaced: true
  group: apps
  kind: ConfigMapCopy
  version: v1
`, []string{`domain is "example.com"`, "a resource ConfigMapCopy/v1 of group apps", "no resource ConfigMapCopy/v1 of group copies"}},
		{"namespaced, no webhook, multigroup", `domain: workshop.dev
layout:
- go.kubebuilder.io/v4
multigroup: true
resources:
- api:
    crdVersion: v1
    namespaced: true
  group: copies
  kind: ConfigMapCopy
  version: v1
`, []string{"multigroup is true", "namespaced: the spec's is cluster-scoped (kubebuilder create api --namespaced=false)", "kubebuilder create webhook --defaulting --programmatic-validation"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.project != "" {
				if err := os.WriteFile(filepath.Join(dir, "PROJECT"), []byte(c.project), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := checkCapstoneProject(dir, 15)
			if err == nil {
				t.Fatal("the PROJECT passed")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the message does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// The page gives, word for word, the kubebuilder commands that workshop capstone-scaffold
// runs to prove a scaffold without logic fails every row.
func TestTheCapstonePageGivesTheScaffoldCommands(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "lesson-15.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Join(strings.Fields(strings.ReplaceAll(string(src), "\\\n", " ")), " ")
	for _, args := range scaffoldCommands {
		if cmd := "kubebuilder " + strings.Join(args, " "); !strings.Contains(page, cmd) {
			t.Errorf("docs/lesson-15.md does not say %q", cmd)
		}
	}
}

// A capstone's hint names the requirement and the page of its spec: no TODO marks a
// place for it in the learner's code.
func TestACapstoneHintNamesTheRequirementAndItsPage(t *testing.T) {
	l := index.Lesson{Number: 15, Title: "x", Folder: "lessons/15-x", Timeout: "60s", StartsEmpty: true, Todos: []index.Todo{
		{ID: 1, Title: "The schema refuses.", Hints: []string{"h1", "h2"}, Tests: []string{"TestR1"}},
	}}
	var out bytes.Buffer
	if err := hint(&out, t.TempDir(), l, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "R1 The schema refuses. (docs/lesson-15.md)\n") || strings.Contains(out.String(), "TODO(") {
		t.Errorf("the hint:\n%s", out.String())
	}
}

// capstoneWithTestTask is a capstone of one requirement and one test task.
var capstoneWithTestTask = index.Lesson{Number: 15, Folder: "lessons/15-capstone", StartsEmpty: true, Todos: []index.Todo{
	{ID: 1, Title: "It runs.", Tests: []string{"TestR1ItRuns"}},
	{ID: 2, Title: "Test it.", File: "internal/it/it_test.go", Tests: []string{"TestIt"}, Bugs: []index.Bug{{Name: "a", Bug: "it breaks"}}},
}}

// The suite grades the requirements; a test task is graded by its bugs, not by a test
// of the suite that does not exist.
func TestTheCapstoneSuiteGradesItsRequirementsAlone(t *testing.T) {
	res := capstoneResult(capstoneWithTestTask, map[string]*testOutcome{"TestR1ItRuns": {action: "pass"}})
	if res.Total != 1 || res.Done != 1 || res.Failed {
		t.Errorf("capstoneResult: %+v; want the one requirement, met", res)
	}
	var out bytes.Buffer
	printCapstoneRows(&out, capstoneWithTestTask, map[string]*testOutcome{"TestR1ItRuns": {action: "pass"}})
	if strings.Contains(out.String(), "Test it.") {
		t.Errorf("the requirements' rows show the test task:\n%s", out.String())
	}
}

// The learner's test imports their module, which kubebuilder init named: it is built in
// the solution's module, under the solution's module path.
func TestACapstoneTestIsReadUnderTheSolutionsModulePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/capstone\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task := capstoneWithTestTask.Todos[1]
	_, found, err := capstoneTestSource(dir, task, "example.org/solutions/15-capstone")
	if err != nil || found {
		t.Fatalf("capstoneTestSource of a missing file: found %v, %v", found, err)
	}
	file := filepath.Join(dir, filepath.FromSlash(task.File))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	test := "package it\n\nimport (\n\tv1 \"example.com/capstone/api/v1\"\n\t\"example.com/capstonex\"\n)\n"
	if err := os.WriteFile(file, []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	src, found, err := capstoneTestSource(dir, task, "example.org/solutions/15-capstone")
	if err != nil || !found {
		t.Fatalf("capstoneTestSource: found %v, %v", found, err)
	}
	want := "package it\n\nimport (\n\tv1 \"example.org/solutions/15-capstone/api/v1\"\n\t\"example.com/capstonex\"\n)\n"
	if src != want {
		t.Errorf("capstoneTestSource:\n%s\nwant:\n%s", src, want)
	}
}

// A test task whose file is not there yet says what to write, and where.
func TestAMissingCapstoneTestSaysWhatToWriteWhere(t *testing.T) {
	g := missingTestGrade(capstoneWithTestTask, capstoneWithTestTask.Todos[1])
	lines := strings.Join(g.Lines(), "\n")
	if g.Done() || g.Total != 1 || !strings.Contains(lines, "TestIt") || !strings.Contains(lines, "lessons/15-capstone/internal/it/it_test.go") {
		t.Errorf("the grade of a missing test: %+v", g)
	}
}

// A capstone's test task is no requirement: its hint names the file to write.
func TestACapstoneTestTasksHintNamesItsFile(t *testing.T) {
	l := capstoneWithTestTask
	l.Todos = slices.Clone(l.Todos)
	l.Todos[1].Hints = []string{"h1", "h2"}
	var out bytes.Buffer
	if err := hint(&out, t.TempDir(), l, 2); err != nil {
		t.Fatal(err)
	}
	if want := "Task 2 Test it. (lessons/15-capstone/internal/it/it_test.go, docs/lesson-15.md)\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("the hint:\n%s\nwant it to start with %q", out.String(), want)
	}
}
