// Package index reads and writes lessons/index.json: what make check-N, make hint-N and
// make progress know about each lesson's tasks. lessongen writes it from the tracks'
// lessons.yaml; todos and lessongen's lint read it; nobody edits it.
package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// A Lesson is one lesson of the workshop and its tasks.
type Lesson struct {
	Number   int    `json:"number"`
	Title    string `json:"title"`
	Operator string `json:"operator"` // the kind the lesson's controller manages
	Folder   string `json:"folder"`   // lessons/NN-name, and its solution solutions/NN-name
	Timeout  string `json:"timeout"`  // go test's -timeout for the lesson's tests
	// StartsEmpty: the learner's folder starts empty (the capstone); its tasks are the
	// requirements its grading suite (scripts/tools/capstone) checks from outside.
	StartsEmpty bool   `json:"startsEmpty,omitempty"`
	Todos       []Todo `json:"todos"`
}

// A Todo is one task of a lesson: where its TODO stands, its hints and its tests.
type Todo struct {
	ID    int      `json:"id"`
	Title string   `json:"title"`
	File  string   `json:"file"`
	Line  int      `json:"line"`
	Hints []string `json:"hints"`
	Tests []string `json:"tests"`
	// Bugs are what a test task's test must catch, one per mutant (none for a code task).
	Bugs []Bug `json:"bugs,omitempty"`
}

// A Bug is one mutant of a test task: its name, and what is wrong in a reviewer's words.
type Bug struct {
	Name string `json:"name"`
	Bug  string `json:"bug"`
}

// IsTest says whether the task is a test task: the learner writes a test, in the
// _test.go file its TODO stands in, and make check-N grades it by the bugs it catches.
func (t Todo) IsTest() bool { return strings.HasSuffix(t.File, "_test.go") }

type file struct {
	Comment string   `json:"//"`
	Lessons []Lesson `json:"lessons"`
}

const comment = "Written by scripts/tools/lessongen from tracks/*/lessons.yaml (make generate); do not edit."

// Write writes lessons, in the order of their numbers, to the file name.
func Write(name string, lessons []Lesson) error {
	slices.SortFunc(lessons, func(a, b Lesson) int { return a.Number - b.Number })
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(file{Comment: comment, Lessons: lessons}); err != nil {
		return err
	}
	return os.WriteFile(name, out.Bytes(), 0o644)
}

// Read reads every lesson of the file name.
func Read(name string) ([]Lesson, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var f file
	if err := json.Unmarshal(src, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f.Lessons, nil
}

// ReadLesson reads lesson number of the file name.
func ReadLesson(name string, number int) (Lesson, error) {
	lessons, err := Read(name)
	if err != nil {
		return Lesson{}, err
	}
	for _, l := range lessons {
		if l.Number == number {
			return l, nil
		}
	}
	return Lesson{}, fmt.Errorf("%s: there is no lesson %d", name, number)
}

// Row is the row of the task l.Todos[i] in make check-N's checklist, in state (not run,
// failing, done): the columns are as wide as the lesson's widest, so that the rows align.
func (l Lesson) Row(i int, state string) string {
	width, idWidth := 0, 0
	for _, t := range l.Todos {
		width = max(width, len(t.Title))
		idWidth = max(idWidth, len(todoID(t)))
	}
	t := l.Todos[i]
	return fmt.Sprintf("  %-8s %-*s %-*s  %s:%d", state, idWidth, todoID(t), width, t.Title, t.File, t.Line)
}

func todoID(t Todo) string { return fmt.Sprintf("TODO(%d)", t.ID) }

// failingTestTime bounds what a failing test takes: gomega's Eventually gives up after
// 5s (shared/testenv), a test rarely waits on more than one, and the few whose wait is
// paced by a clock of their own (a lease's retry) add a few seconds.
const failingTestTime = 15 * time.Second

// TestTimeout is go test's -timeout for the lesson: its own, sized for a run that stops
// at the first failure; with all, where every test may fail and wait out an Eventually,
// as much again for each of its tests. A test that never returns is then reported as
// failing, stuck where it stands, rather than after go test's ten minutes.
func (l Lesson) TestTimeout(all bool) (time.Duration, error) {
	d, err := time.ParseDuration(l.Timeout)
	if err != nil {
		return 0, fmt.Errorf("lesson %d: timeout %q: %w", l.Number, l.Timeout, err)
	}
	if all {
		for _, t := range l.Todos {
			d += time.Duration(len(t.Tests)) * failingTestTime
		}
	}
	return d, nil
}
