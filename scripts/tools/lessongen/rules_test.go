package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestATaskWhoseTestsRunBeforeAnEarlierTasksIsFound(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		// a_test.go runs before b_test.go: task 2's test before task 1's.
		"solutions/02-x/internal/a_test.go": "package internal\n\nfunc TestTwo(t *testing.T) {}\nfunc TestOld(t *testing.T) {}\n",
		"solutions/02-x/internal/b_test.go": "package internal\n\nfunc TestOne(t *testing.T) {}\nfunc TestHelperOfNoTask(t *testing.T) {}\n",
		"solutions/01-x/internal/a_test.go": "package internal\n\nfunc TestOld(t *testing.T) {}\n",
	})
	lessons := []index.Lesson{
		{Number: 1, Operator: "X", Folder: "lessons/01-x", Todos: []index.Todo{{ID: 1, Tests: []string{"TestOld"}}}},
		{Number: 2, Operator: "X", Folder: "lessons/02-x", Todos: []index.Todo{
			{ID: 1, Tests: []string{"TestOne"}},
			{ID: 2, Tests: []string{"TestTwo", "TestOld"}},
		}},
	}
	problems, err := testOrderProblems(root, lessons)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "TestOne (task 1) runs after TestTwo (task 2)") {
		t.Errorf("problems %q; want one, TestOne after TestTwo", problems)
	}

	// In order, and TestOld, lesson 1's, may stay where lesson 1 put it.
	writeFiles(t, root, map[string]string{
		"solutions/02-x/internal/a_test.go": "package internal\n\nfunc TestOld(t *testing.T) {}\nfunc TestOne(t *testing.T) {}\n",
		"solutions/02-x/internal/b_test.go": "package internal\n\nfunc TestTwo(t *testing.T) {}\n",
	})
	if problems, err := testOrderProblems(root, lessons); err != nil || len(problems) != 0 {
		t.Errorf("tests in task order: problems %q, %v", problems, err)
	}
}

func TestAWalkthroughHintNamesATaskOfItsLessonAndItsFunction(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"solutions/05-x/internal/pool.go": "package internal\n\nfunc concernsPool() {}\n",
		"scripts/walkthroughs/05.sh": strings.Join([]string{
			`# TODO(9) in a comment is not a hint`,
			`hint "TODO(1): concernsPool should pick the members"`,
			`hint "TODO(1): an apply that never forces"`,
			`hint "TODO(1): poolsOfNode maps a node"`,
			`hint "TODO(3): the pass"`,
		}, "\n"),
	})
	lessons := []index.Lesson{{Number: 5, Folder: "lessons/05-x", Todos: []index.Todo{
		{ID: 1, Title: "Pick the members.", File: "internal/pool.go"},
		{ID: 2, Title: "Map nodes.", File: "internal/pool.go"},
	}}}
	problems, err := walkthroughProblems(root, lessons)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`scripts/walkthroughs/05.sh:4: TODO(1) is "Pick the members.", in internal/pool.go, which does not mention poolsOfNode`,
		"scripts/walkthroughs/05.sh:5: TODO(3): lesson 5 has tasks 1 to 2",
	}
	if strings.Join(problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(want, "\n"))
	}
}
