package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// The lesson pages (docs/lesson-NN.md) show make check-N's checklist as it printed it:
// each task's title and where its TODO stands. Those come from lessons.yaml and the
// generated lesson, so the pages are brought in line by make generate (lessongen docs)
// and checked by make verify (lessongen lint), never kept in step by hand.
var (
	checklistRow = regexp.MustCompile(`^  (not run|failing|done) +TODO\((\d+)\) `)
	tasksDone    = regexp.MustCompile(`\b(\d+) of \d+ tasks done\b`)
	// A test a page names in backquotes; `TestSync...` names a family, not a test.
	docTest = regexp.MustCompile("`(Test[A-Z][A-Za-z0-9_]*)(\\.\\.\\.)?")
)

// A docDrift is a line of a lesson's page that says something else than the lesson.
type docDrift struct {
	Page    string // docs/lesson-NN.md
	Line    int
	Problem string
	Want    string // the line make generate writes, or "" when it cannot
}

func (d docDrift) String() string {
	if d.Want == "" {
		return fmt.Sprintf("%s:%d: %s", d.Page, d.Line, d.Problem)
	}
	return fmt.Sprintf("%s:%d: %s; make generate writes:\n\t%s", d.Page, d.Line, d.Problem, d.Want)
}

// syncDocs compares every lesson's page with lessons/index.json and the lesson's
// solution, and returns each line that drifted. With write, it rewrites the lines it
// can (checklist rows, task counts) in place.
func syncDocs(root string, write bool) ([]docDrift, error) {
	lessons, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	if err != nil {
		return nil, err
	}
	var drifts []docDrift
	for _, l := range lessons {
		page := fmt.Sprintf("docs/lesson-%02d.md", l.Number)
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		tests, err := solutionTests(filepath.Join(root, "solutions", filepath.Base(l.Folder)))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(src), "\n")
		changed := false
		for i, line := range lines {
			want, problem := docLine(l, line, tests)
			if problem == "" {
				continue
			}
			drifts = append(drifts, docDrift{Page: page, Line: i + 1, Problem: problem, Want: want})
			if want != "" {
				lines[i], changed = want, true
			}
		}
		if write && changed {
			if err := os.WriteFile(filepath.Join(root, page), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return drifts, nil
}

// docLine checks one line of lesson l's page: a checklist row must be the one make
// check-N prints, a count of tasks must count the lesson's, and a test named must be one
// of the solution's tests. It returns the line as it should read (or "" when only a
// person can fix it) and what is wrong, or "" when nothing is.
func docLine(l index.Lesson, line string, tests map[string]bool) (string, string) {
	if m := checklistRow.FindStringSubmatch(line); m != nil {
		id, _ := strconv.Atoi(m[2])
		for i, t := range l.Todos {
			if t.ID == id {
				if want := l.Row(i, m[1]); line != want {
					return want, fmt.Sprintf("the checklist row of TODO(%d) is not what make check-%d prints", id, l.Number)
				}
				return "", ""
			}
		}
		return "", fmt.Sprintf("lesson %d has no task %d", l.Number, id)
	}
	if strings.Contains(line, "tasks done") && (strings.Contains(line, filepath.Base(l.Folder)) || strings.HasPrefix(line, "warning: ")) {
		want := tasksDone.ReplaceAllString(line, fmt.Sprintf("$1 of %d tasks done", len(l.Todos)))
		if want != line {
			return want, fmt.Sprintf("lesson %d has %d tasks", l.Number, len(l.Todos))
		}
	}
	for _, m := range docTest.FindAllStringSubmatch(line, -1) {
		if m[2] == "" && m[1] != "TestMain" && !tests[m[1]] {
			return "", fmt.Sprintf("%s is not a test of solution %02d", m[1], l.Number)
		}
	}
	return "", ""
}

// solutionTests returns the top-level tests of the module at dir (testNames).
func solutionTests(dir string) (map[string]bool, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		files[path], err = os.ReadFile(path)
		return err
	})
	return testNames(files), err
}
