// Package result is what make check-N found, kept for make hint-N and make progress:
// the todos tool writes it after each check, the workshop command reads it.
package result

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// A Result is the state of a lesson's tasks at its last check.
type Result struct {
	Done  int `json:"done"`  // the tasks done
	Total int `json:"total"` // the lesson's tasks
	// Failed: go test failed (a test, a build, a package outside its tests).
	Failed bool `json:"failed"`
	// First is the first task not done, 0 when every task is done.
	First int `json:"first"`
	// Shown: the checklist showed a failure (a failed assertion, a build error); when
	// go test failed without one, the check points to its log instead.
	Shown bool `json:"shown"`
	// Failure is the failure the checklist showed first, if any: what a learner reads,
	// and what the maintainers' check of a marked mistake looks for its words in.
	Failure *Failure `json:"failure,omitempty"`
}

// A Failure is what the checklist showed of a failing test: under task Task's row, or,
// for Task 0, under a line that says a test of no task fails (Untied).
type Failure struct {
	Task   int      `json:"task"`
	Untied bool     `json:"untied,omitempty"`
	Lines  []string `json:"lines"`
}

// A Step is what todos expect found of a lesson with tasks 1 to Solved solved: whether
// exactly those are done and task Solved+1 fails (OK), and if not, why (Problems); how
// long its tests ran, some test binary running (TestSeconds, 0 when none ran); and the
// test of task Solved+1 that failed first, with how long it ran.
type Step struct {
	Lesson       int      `json:"lesson"`
	Solved       int      `json:"solved"`
	OK           bool     `json:"ok"`
	Problems     []string `json:"problems,omitempty"`
	TestSeconds  float64  `json:"testSeconds"`
	FirstFailure string   `json:"firstFailure,omitempty"`
	FirstSeconds float64  `json:"firstSeconds,omitempty"`
}

// Complete says whether every task was done and nothing failed.
func (r Result) Complete() bool { return !r.Failed && r.Done == r.Total }

// Path is where the result of lesson folder (lessons/NN-name, or its base name) is
// kept in the checkout root.
func Path(root, folder string) string {
	return filepath.Join(root, ".cache", "check", filepath.Base(folder)+".result.json")
}

// Write writes r (a Result or a Step) to the file name, making its folder.
func Write(name string, r any) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

// Read reads the file name; a file that does not exist is os.ErrNotExist (never
// checked).
func Read(name string) (Result, error) {
	var r Result
	err := read(name, &r)
	return r, err
}

// ReadStep reads the Step todos expect wrote to the file name.
func ReadStep(name string) (Step, error) {
	var s Step
	err := read(name, &s)
	return s, err
}

func read(name string, v any) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// A Grade is what make check-N found of a test task's test (the workshop command grades
// it, todos shows it as the task's row): whether it passes on the solution, and which of
// the task's bugs it catches, failing on the solution with the bug made.
type Grade struct {
	Task int `json:"task"`
	// Broken holds the lines that say why the test could not be graded: it does not
	// build, or it fails on correct code. Empty when it passed there.
	Broken []string `json:"broken,omitempty"`
	Total  int      `json:"total"`  // the task's bugs
	Caught int      `json:"caught"` // those the test fails on
	// Missed are the descriptions of the bugs the test passes on.
	Missed []string `json:"missed,omitempty"`
}

// Done says whether the test passes on correct code and catches every bug.
func (g Grade) Done() bool { return len(g.Broken) == 0 && g.Caught == g.Total }

// Lines are what the checklist shows under the task's row when it is not done.
func (g Grade) Lines() []string {
	if len(g.Broken) > 0 {
		return g.Broken
	}
	lines := []string{fmt.Sprintf("your test catches %d of %d known bugs; it passes when:", g.Caught, g.Total)}
	for _, bug := range g.Missed {
		lines = append(lines, "  - "+bug)
	}
	return lines
}

// WriteGrades and ReadGrades keep a check's grades for todos, in the file name.
func WriteGrades(name string, grades []Grade) error { return Write(name, grades) }

// ReadGrades reads the grades WriteGrades wrote.
func ReadGrades(name string) ([]Grade, error) {
	var g []Grade
	err := read(name, &g)
	return g, err
}
