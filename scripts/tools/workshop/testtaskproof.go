package main

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// workshop testtasks [TRACK] proves the grading of every test task (of TRACK's lessons,
// or of every track's) both ways: the solution's test passes on correct code and
// catches every bug; the lesson's empty test, and the solution's test made to assert
// nothing, catch none, so that neither counts as done.
func testTasksCommand(root string, args []string) error {
	c, track, indexed, err := prepareChecks(root, "testtasks", args)
	if err != nil {
		return err
	}
	rows, err := readLessonRows(c.lessongen, root, track)
	if err != nil {
		return err
	}
	var lessons []index.Lesson
	for _, r := range rows {
		if l := lessonOf(indexed, r.folder); len(testTasks(l)) > 0 {
			lessons = append(lessons, l)
		}
	}
	if len(lessons) == 0 {
		return fmt.Errorf("no test task in %s's lessons", cmp.Or(track, "any track"))
	}
	say("Grading the solution's, an empty and an idle test of each test task of %d lessons, %d at a time", len(lessons), jobs())
	var mu sync.Mutex
	var problems []string
	inParallel(len(lessons), func(i int) {
		found, err := c.proveGrading(lessons[i])
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			found = append(found, fmt.Sprintf("lesson %d: %v", lessons[i].Number, err))
		}
		problems = append(problems, found...)
	})
	if err := c.noSurvivors("the test tasks' gradings"); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d gradings of test tasks are not as they must be:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	say("Every test task's solution catches all its bugs, and its empty and idle tests none")
	return nil
}

// An idle test is the solution's test with every assertion made to pass: its Gomega
// reports failures to assertsNothing, which ignores them. It runs all the solution's
// steps, and must catch no bug: a test is graded by what it asserts, not by what it runs.
const idleFile = "zz_asserts_nothing_test.go"

func idleSource(pkg string) string {
	return "package " + pkg + `

// assertsNothing is a Gomega's testing.T that ignores every failure.
type assertsNothing struct{}

func (assertsNothing) Helper()               {}
func (assertsNothing) Fatalf(string, ...any) {}
`
}

// proveGrading grades the three tests of each test task of lesson l and returns what
// is not as it must be.
func (c *checks) proveGrading(l index.Lesson) ([]string, error) {
	timeout, err := l.TestTimeout(false)
	if err != nil {
		return nil, err
	}
	g := grader{root: c.root, lessongen: c.lessongen, lesson: l, timeout: timeout, env: gradingEnv(c.root, c.mark), buildFlags: c.buildFlags}
	mutants, err := g.mutants()
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, t := range testTasks(l) {
		var mine []mutant
		for _, m := range mutants {
			if m.Task == t.ID {
				mine = append(mine, m)
			}
		}
		where := fmt.Sprintf("lesson %d, TODO(%d)", l.Number, t.ID)
		solution := filepath.Join(c.root, "solutions", path.Base(l.Folder), filepath.FromSlash(t.File))
		src, err := os.ReadFile(solution)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(src), "NewWithT(t)") {
			problems = append(problems, where+": the solution's test makes no NewWithT(t), which the idle test replaces")
			continue
		}
		idle := filepath.Join(c.root, ".cache", "test", fmt.Sprintf("idle-%02d-%d_test.go", l.Number, t.ID))
		if err := os.MkdirAll(filepath.Dir(idle), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(idle, []byte(strings.ReplaceAll(string(src), "NewWithT(t)", "NewWithT(assertsNothing{})")), 0o644); err != nil {
			return nil, err
		}
		pkg := packageName(string(src))
		empty := filepath.Join(c.root, l.Folder, filepath.FromSlash(t.File))
		if l.StartsEmpty {
			// The learner's folder starts empty: the empty test is the task's tests
			// with no body, as a learner would start them.
			empty = filepath.Join(c.root, ".cache", "test", fmt.Sprintf("empty-%02d-%d_test.go", l.Number, t.ID))
			if err := os.WriteFile(empty, []byte(emptyTestSource(pkg, t.Tests)), 0o644); err != nil {
				return nil, err
			}
		}
		for _, try := range []struct {
			name, file string
			extra      map[string]string
			want       func(result.Grade) bool
			wanted     string
		}{
			{"the solution's test", solution, nil, result.Grade.Done, "passes on correct code and catches every bug"},
			{"the lesson's empty test", empty, nil, catchesNone, "catches no bug"},
			{"the solution's test asserting nothing", idle, map[string]string{path.Join(path.Dir(t.File), idleFile): idleSource(pkg)}, catchesNone, "catches no bug"},
		} {
			grade, timing, err := g.grade(t, try.file, try.extra, mine)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %w", where, try.name, err)
			}
			if !try.want(grade) {
				problems = append(problems, fmt.Sprintf("%s: %s should say it %s; it says:\n    %s", where, try.name, try.wanted, strings.Join(grade.Lines(), "\n    ")))
				continue
			}
			say("Lesson %d, TODO(%d): %s %s (%d of %d bugs caught) in %s", l.Number, t.ID, try.name, try.wanted, grade.Caught, grade.Total, timing)
		}
	}
	return problems, nil
}

// emptyTestSource is a test file of package pkg whose tests do nothing.
func emptyTestSource(pkg string, tests []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport \"testing\"\n", pkg)
	for _, name := range tests {
		fmt.Fprintf(&b, "\nfunc %s(t *testing.T) {}\n", name)
	}
	return b.String()
}

// catchesNone says whether a test passed on correct code and caught no bug.
func catchesNone(g result.Grade) bool { return len(g.Broken) == 0 && g.Caught == 0 }

// packageName is the name the Go source src declares.
func packageName(src string) string {
	for line := range strings.Lines(src) {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "package "); ok {
			return strings.TrimSpace(name)
		}
	}
	return ""
}
