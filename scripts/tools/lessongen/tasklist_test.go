package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

func TestTheTaskListSaysEachTaskOnceFromTheManifest(t *testing.T) {
	l := index.Lesson{Number: 3, Todos: []index.Todo{{ID: 1, File: "internal/plan.go"}, {ID: 2, File: "cmd/main.go"}}}
	spec := &lessonSpec{Tasks: []taskSpec{
		{ID: 1, Title: "Name each pod.", Todo: "Return \"<mds>-<node>\",\n  cut. See \"Deterministic names\" in docs/lesson-03.md.",
			Hints: []string{"a hint the page must not show"}, Tests: []string{"TestPodNames"}},
		{ID: 2, Title: "Serve.", Todo: "See \"Reading *T\" and \"Other\" in docs/lesson-01.md.", Tests: []string{"TestA", "TestB"}},
	}}
	got := taskList(l, spec)
	flat := strings.Join(strings.Fields(got), " ")
	for _, want := range []string{
		"1. **Name each pod.** In `internal/plan.go`: Return \"\\<mds>-\\<node>\", cut.",
		"[Deterministic names](#deterministic-names)",
		"*Test:* `TestPodNames`.",
		"2. **Serve.** In `cmd/main.go`:",
		"[Reading \\*T](lesson-01.md#reading-t) and [Other](lesson-01.md#other)",
		"*Tests:* `TestA`, `TestB`.",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the task list lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "a hint the page must not show") {
		t.Errorf("the task list shows a hint, which make hint-N gives one at a time:\n%s", got)
	}
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if len(line) > 91 && strings.Contains(line, " ") {
			t.Errorf("a line of %d characters: %q", len(line), line)
		}
	}
}

func TestSlugIsGitHubsAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Binding a pod to its node: `nodeName` or affinity": "binding-a-pod-to-its-node-nodename-or-affinity",
		"Ready means the cache has synced":                  "ready-means-the-cache-has-synced",
		"`make check-3`: the tests":                         "make-check-3-the-tests",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestWordsCountProseAndCheckTheTemplate(t *testing.T) {
	page := strings.Join([]string{
		"# Lesson 99: a title", "one two three", "```", "code is not prose", "```",
		"<!-- a comment", "is not prose either -->",
		"## Concepts", "## Your tasks", "## Check your work", "## Common mistakes",
		"## Going further", "four five", "## Next",
	}, "\n")
	w := countWords("docs/lesson-99.md", []byte(page))
	// The headings count: "# Lesson 99: a title" is 5 words, each "## X" its own.
	if w.mainPath != 5+3+2+3+4+3 || w.further != 3+2+2 {
		t.Errorf("main path %d, going further %d words; want 20 and 7", w.mainPath, w.further)
	}
	if p := w.problems(); len(p) != 0 {
		t.Errorf("a page in the template's shape has problems: %q", p)
	}
	w = countWords("docs/lesson-99.md", []byte(strings.Replace(page, "## Going further", "## Other pitfalls", 1)))
	if p := w.problems(); len(p) != 1 || !strings.Contains(p[0], `"Going further"`) {
		t.Errorf("a page without Going further: problems %q, want one naming the template", p)
	}
	w.mainPath = mainPathBudget + 1
	if p := w.problems(); len(p) != 2 || !strings.Contains(p[1], "over the budget") {
		t.Errorf("a page over the budget: problems %q, want the budget named", p)
	}
}

// The pages' budget is an average a page: a new lesson may bring its own words, and a
// total over n pages' share fails the check, naming the budget.
func TestThePagesBudgetIsAnAverageAPage(t *testing.T) {
	// page writes a page in the template whose "Going further" holds words prose words.
	page := func(words int) string {
		return strings.Join([]string{
			"## Concepts", "## Your tasks", "## Check your work", "## Common mistakes",
			"## Going further", strings.TrimSpace(strings.Repeat("word ", words)), "## Next",
		}, "\n")
	}
	// A page's headings are 17 prose words; the rest is its Going further.
	for _, tc := range []struct {
		name  string
		pages []int
		over  bool
	}{
		{"two pages over two shares", []int{averagePageBudget, averagePageBudget}, true},
		{"a third page short enough to bring the average under", []int{averagePageBudget, averagePageBudget, averagePageBudget - 2*17 - 17}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "docs"), 0o755); err != nil {
				t.Fatal(err)
			}
			for i, words := range tc.pages {
				name := filepath.Join(root, "docs", fmt.Sprintf("lesson-%02d.md", i+1))
				if err := os.WriteFile(name, []byte(page(words)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := printWords(root, io.Discard, true)
			if tc.over && err == nil {
				t.Errorf("%d pages of %v prose words passed the check; their budget is %d", len(tc.pages), tc.pages, pagesBudget(len(tc.pages)))
			}
			if !tc.over && err != nil {
				t.Errorf("%d pages of %v prose words failed the check (%v); their budget is %d", len(tc.pages), tc.pages, err, pagesBudget(len(tc.pages)))
			}
		})
	}
}
