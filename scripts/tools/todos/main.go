// Command todos reads the tasks of a lesson (lessons/index.json, written by lessongen)
// and what go test said of them.
//
//	go test -json -failfast ./... | todos check -index lessons/index.json -lesson 1 -result F
//	todos check -index lessons/index.json -lesson 1 -result F [-upto 2] -stop -- go test -json -failfast
//	go test -json -failfast ./... | todos expect -index lessons/index.json -lesson 1 -done 2
//	todos expect -index lessons/index.json -lesson 1 -done 2 -stop -- go test -json -failfast
//	todos timeout -index lessons/index.json -lesson 1 [-all]
//
// check prints one line per task, done or not, and for the first task not done the
// failure of its first failing test and the hint command; it writes the result to F
// (JSON, scripts/tools/internal/result) for make progress and make hint-N (the workshop
// command). Given the go test command (without packages: todos names them), it runs it
// in the lesson's module, the current folder. With -stop it runs the tasks' tests first,
// alone, and ends go test as soon as the first failure is settled (the first task not
// done is failing); the lesson's other tests (the earlier lessons' behaviour, which the
// solution keeps) run once every task is done. Without -stop, every test runs. expect
// is the maintainer's check that a lesson with its tasks 1 to N solved, and no more, has
// exactly those tasks done and task N+1 failing; given the go test command and -stop, it
// runs the tests of tasks 1 to N+1 as check would, and stops where check would (a later
// task whose tests pass without its code shows in the step before it, where that task
// should fail). timeout prints the lesson's go test -timeout: a test that never returns
// is reported as failing, stuck where it stands, after that long rather than go test's
// ten minutes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	indexFile := fs.String("index", "lessons/index.json", "the index of the lessons")
	number := fs.Int("lesson", 0, "the lesson's number")
	resultFile := fs.String("result", "", "check: write the tasks' state (JSON) to this file, for make hint-N and make progress; expect: write what it found (JSON)")
	verbose := fs.Bool("v", false, "check: print go test's whole output too")
	logFile := fs.String("log", "", "check: write go test's whole output (as -v prints it) to this file")
	failuresFile := fs.String("failures", "", "check: write what failed (build errors, failed tests' output) to this file")
	done := fs.Int("done", 0, "expect: the tasks solved")
	stopEarly := fs.Bool("stop", false, "check, expect: stop the go test command given after -- once the first failure is settled")
	all := fs.Bool("all", false, "timeout: for a run without -failfast, where every test may fail")
	upto := fs.Int("upto", 0, "check: the last task whose tests run (default: the lesson's last)")
	gradesFile := fs.String("grades", "", "check, expect: the test tasks' grades (JSON, written by the workshop command)")
	_ = fs.Parse(os.Args[2:])

	l, err := index.ReadLesson(*indexFile, *number)
	var grades map[int]result.Grade
	if err == nil && *gradesFile != "" {
		grades, err = readGrades(*gradesFile)
	}
	if err == nil {
		switch cmd {
		case "check":
			err = checkCommand(fs.Args(), os.Stdout, l, *upto, *resultFile, *logFile, *failuresFile, *verbose, *stopEarly, grades)
		case "expect":
			err = expectCommand(fs.Args(), os.Stdout, l, *done, *resultFile, *stopEarly, grades)
		case "timeout":
			err = timeout(os.Stdout, l, *all)
		default:
			usage()
		}
	}
	var failed errFailed
	switch {
	case errors.As(err, &failed):
		os.Exit(1) // said already
	case err != nil:
		fmt.Fprintf(os.Stderr, "todos: %v\n", err)
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: todos check|expect|timeout -index lessons/index.json -lesson N [...]")
	os.Exit(2)
}

// errFailed: the tests failed, or a task is not done; the output said how.
type errFailed struct{}

func (errFailed) Error() string { return "failed" }

// A task's state after a test run.
type state int

const (
	notRun  state = iota // none of its tests ran: an earlier failure stopped them
	failing              // one of its tests failed
	done                 // all of its tests passed
)

func (s state) String() string { return [...]string{"not run", "failing", "done"}[s] }

// states returns each task's state, in the order of l.Todos. A test task's is its grade's:
// done when the learner's test passes on correct code and catches every bug, not run
// when it was not graded.
func states(l index.Lesson, r *run) []state {
	out := make([]state, len(l.Todos))
	for i, t := range l.Todos {
		if t.IsTest() {
			if g, ok := r.grades[t.ID]; ok {
				out[i] = failing
				if g.Done() {
					out[i] = done
				}
			}
			continue
		}
		passed := 0
		for _, name := range t.Tests {
			switch r.results[name] {
			case "fail":
				out[i] = failing
			case "pass":
				passed++
			}
		}
		if out[i] != failing && passed == len(t.Tests) {
			out[i] = done
		}
	}
	return out
}

// checkCommand runs check on go test's output: of the command args, or read from stdin.
// With upto (not 0), only the tests of tasks 1 to upto run.
func checkCommand(args []string, w io.Writer, l index.Lesson, upto int, resultFile, logFile, failuresFile string, verbose, stopEarly bool, grades map[int]result.Grade) error {
	if upto == 0 {
		upto = len(l.Todos)
	}
	r, err := goTestRun(args, l, upto, stopEarly, w, grades)
	if err != nil {
		return err
	}
	return check(r, w, l, resultFile, logFile, failuresFile, verbose)
}

// goTestRun returns what go test said of tasks 1 to upto of lesson l: read from stdin
// when args is empty, or else said by the go test command args, run here, without
// packages (todos names them). Without stopEarly it runs every test of every package.
// With stopEarly it runs as planRuns says, in the module in the current folder: the
// tasks' tests first, stopped once the first failure is settled (firstFailureKnown),
// then, once every task of the lesson is done, the other tests, which it tells progress
// before they start.
func goTestRun(args []string, l index.Lesson, upto int, stopEarly bool, progress io.Writer, grades map[int]result.Grade) (*run, error) {
	r := newRun()
	r.grades = grades
	if len(args) == 0 {
		return r, r.read(os.Stdin, nil)
	}
	if !stopEarly {
		return r, runInto(r, append(args, "./..."), nil)
	}
	p, err := planRuns(l, ".", upto)
	if err != nil {
		return nil, err
	}
	settled := firstFailureKnown(l)
	if err := runInto(r, p.firstRun(args), settled); err != nil || r.stopped || r.failed || len(p.others) == 0 {
		return r, err
	}
	fmt.Fprintf(progress, "Every task's tests pass; now the solution's other tests (the earlier lessons' behaviour) in %s\n", strings.Join(p.others, " "))
	return r, runInto(r, p.othersRun(args), nil)
}

// runInto runs the go test command args and reads its output into r. Once settled, if
// not nil, says so of r, and where go test can be stopped (stopsEarly), go test is
// stopped.
func runInto(r *run, args []string, settled func(*run) bool) error {
	out, stop, wait, err := runGoTest(args)
	if err != nil {
		return err
	}
	var enough func(*run) bool
	if settled != nil && stopsEarly {
		enough = func(r *run) bool {
			if !settled(r) {
				return false
			}
			stop()
			return true
		}
	}
	err = r.read(out, enough)
	_ = wait() // go test fails with the tests, or was stopped: its output said how
	return err
}

// check prints the checklist of lesson l from what go test said (r).
func check(r *run, w io.Writer, l index.Lesson, resultFile, logFile, failuresFile string, verbose bool) error {
	if logFile != "" {
		if err := os.WriteFile(logFile, []byte(strings.Join(r.build, "")+r.text.String()), 0o644); err != nil {
			return err
		}
	}
	if verbose {
		fmt.Fprint(w, r.text.String())
	}
	if len(r.build) > 0 {
		fmt.Fprint(w, strings.Join(r.build, ""))
	}
	st := states(l, r)
	count, first := 0, 0
	for i, s := range st {
		if s == done {
			count++
		} else if first == 0 {
			first = l.Todos[i].ID
		}
	}
	fmt.Fprintf(w, "\nlessons/%s: %d of %d tasks done\n", filepath.Base(l.Folder), count, len(l.Todos))
	var shown *failure
	var said *result.Failure
	for i, t := range l.Todos {
		fmt.Fprintln(w, l.Row(i, st[i].String()))
		if st[i] == failing && shown == nil {
			f := r.failure(t.Tests)
			if t.IsTest() {
				f = failure{lines: r.grades[t.ID].Lines()}
			}
			shown = &f
			said = &result.Failure{Task: t.ID, Lines: f.lines}
			for _, line := range f.lines {
				fmt.Fprintf(w, "           %s\n", line)
			}
			fmt.Fprintf(w, "           A hint: make hint-%d T=%d\n", l.Number, t.ID)
		}
	}
	if r.stopped {
		fmt.Fprintf(w, "  (The tests of the later tasks were stopped at this first failure; ALL=1 runs them all.)\n")
	}
	if shown == nil && (r.failed || len(r.failures) > 0) {
		// Failed outside the tasks' tests: a test no task names, a package that could
		// not start its tests.
		f := r.untied(l)
		shown = &f
		said = &result.Failure{Untied: len(f.lines) > 0 && f.lines[0] == untiedHeading, Lines: f.lines}
		for _, line := range f.lines {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
	// What the learner is shown failed, and nothing else: a known symptom is looked for
	// there, not in the logs of the whole package, where a test that passes may provoke
	// one on purpose (a conflict) and a failing test's manager logs what is no news.
	if failuresFile != "" {
		text := strings.Join(r.build, "")
		if shown != nil {
			text += shown.text + "\n" + strings.Join(shown.lines, "\n") + "\n"
		}
		if err := os.WriteFile(failuresFile, []byte(text), 0o644); err != nil {
			return err
		}
	}
	if resultFile != "" {
		// Shown: make check-N points to the failure above, or else to go test's log.
		res := result.Result{Done: count, Total: len(l.Todos), Failed: r.failed, First: first,
			Shown: shown != nil && len(shown.lines) > 0 || len(r.build) > 0, Failure: said}
		if err := result.Write(resultFile, res); err != nil {
			return err
		}
	}
	if r.failed || count < len(l.Todos) {
		return errFailed{}
	}
	return nil
}

// expectCommand runs expect on go test's output: of the command args, or read from
// stdin. Only the tests of tasks 1 to solved+1 run: the first failure is one of them.
func expectCommand(args []string, w io.Writer, l index.Lesson, solved int, resultFile string, stopEarly bool, grades map[int]result.Grade) error {
	r, err := goTestRun(args, l, min(solved+1, len(l.Todos)), stopEarly, w, grades)
	if err != nil {
		return err
	}
	step, err := expect(r, w, l, solved)
	if resultFile != "" {
		if err := result.Write(resultFile, step); err != nil {
			return err
		}
	}
	return err
}

// expect says whether, in what go test said (r), tasks 1 to solved are done and task
// solved+1 is failing.
func expect(r *run, w io.Writer, l index.Lesson, solved int) (result.Step, error) {
	step := result.Step{Lesson: l.Number, Solved: solved}
	st := states(l, r)
	for i, t := range l.Todos {
		switch {
		case t.ID <= solved && st[i] != done:
			step.Problems = append(step.Problems, fmt.Sprintf("task %d is solved but %s", t.ID, st[i]))
		case t.ID == solved+1 && st[i] == notRun && len(r.other) > 0:
			step.Problems = append(step.Problems, fmt.Sprintf("task %d's tests did not run: a package failed outside its tests (below)", t.ID))
		case t.ID == solved+1 && st[i] != failing:
			step.Problems = append(step.Problems, fmt.Sprintf("task %d is not solved but %s: none of its tests (%s) fails without it, or a later task's test failed first", t.ID, st[i], strings.Join(t.Tests, ", ")))
		case t.ID > solved+1 && st[i] == done:
			step.Problems = append(step.Problems, fmt.Sprintf("task %d is not solved but done: its tests (%s) pass without it", t.ID, strings.Join(t.Tests, ", ")))
		}
	}
	if len(r.build) > 0 {
		step.Problems = append(step.Problems, "the lesson does not build:\n"+strings.Join(r.build, ""))
	}
	if r.ran() {
		step.TestSeconds = r.elapsed().Seconds()
		fmt.Fprintf(w, "the tests ran for %.1fs\n", step.TestSeconds)
	}
	// What the step waited for last: a failing test that waits for what never comes
	// takes its Eventually's whole time.
	if solved < len(l.Todos) {
		if name, ok := r.firstFailure(l.Todos[solved]); ok {
			step.FirstFailure, step.FirstSeconds = name, r.seconds[name]
			fmt.Fprintf(w, "task %d failed first in %s, after %.1fs\n", solved+1, name, r.seconds[name])
		}
	}
	if len(step.Problems) == 0 {
		step.OK = true
		fmt.Fprintf(w, "lesson %d with tasks 1-%d solved: exactly those done, task %d failing\n", l.Number, solved, solved+1)
		return step, nil
	}
	fmt.Fprintf(w, "lesson %d with tasks 1-%d solved:\n  %s\n", l.Number, solved, strings.Join(step.Problems, "\n  "))
	for _, line := range r.other {
		fmt.Fprintf(w, "  %s\n", line)
	}
	return step, errFailed{}
}

// readGrades reads the test tasks' grades, by task.
func readGrades(name string) (map[int]result.Grade, error) {
	list, err := result.ReadGrades(name)
	if err != nil {
		return nil, err
	}
	grades := map[int]result.Grade{}
	for _, g := range list {
		grades[g.Task] = g
	}
	return grades, nil
}

// timeout prints go test's -timeout for the lesson (index.Lesson.TestTimeout).
func timeout(w io.Writer, l index.Lesson, all bool) error {
	d, err := l.TestTimeout(all)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, d)
	return nil
}
