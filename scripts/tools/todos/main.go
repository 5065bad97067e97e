// Command todos reads the tasks of a lesson (lessons/index.json, written by lessongen)
// and what go test said of them.
//
//	go test -json -failfast ./... | todos check -index lessons/index.json -lesson 1 -result F
//	todos check -index lessons/index.json -lesson 1 -result F [-upto 2] -stop -- go test -json -failfast
//	todos hint -index lessons/index.json -lesson 1 [-task 3] -seen DIR -result F
//	go test -json -failfast ./... | todos expect -index lessons/index.json -lesson 1 -done 2
//	todos expect -index lessons/index.json -lesson 1 -done 2 -stop -- go test -json -failfast
//	todos timeout -index lessons/index.json -lesson 1 [-all]
//
// check prints one line per task, done or not, and for the first task not done the
// failure of its first failing test and the hint command; it writes the result to F for
// make progress and make hint-N. Given the go test command (without packages: todos
// names them), it runs it in the lesson's module, the current folder. With -stop it runs
// the tasks' tests first, alone, and ends go test as soon as the first failure is settled
// (the first task not done is failing); the lesson's other tests (the earlier lessons'
// behaviour, which the solution keeps) run once every task is done. Without -stop, every
// test runs. hint prints the next hint of a task (by default the first task not done at
// the last check). expect is the maintainer's check that a lesson with its tasks 1 to N
// solved, and no more, has exactly those tasks done and task N+1 failing; given the go
// test command and -stop, it runs the tests of tasks 1 to N+1 as check would, and stops
// where check would (a later task whose tests pass without its code shows in the step
// before it, where that task should fail). timeout prints the lesson's go test -timeout:
// a test that never returns is reported as failing, stuck where it stands, after that
// long rather than go test's ten minutes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	cmd := os.Args[1]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	indexFile := fs.String("index", "lessons/index.json", "the index of the lessons")
	number := fs.Int("lesson", 0, "the lesson's number")
	resultFile := fs.String("result", "", "check writes, hint reads, the tasks' state after the last check")
	verbose := fs.Bool("v", false, "check: print go test's whole output too")
	logFile := fs.String("log", "", "check: write go test's whole output (as -v prints it) to this file")
	failuresFile := fs.String("failures", "", "check: write what failed (build errors, failed tests' output) to this file")
	task := fs.Int("task", 0, "hint: the task (default: the first one not done at the last check)")
	seen := fs.String("seen", "", "hint: the folder that remembers the hints already shown")
	done := fs.Int("done", 0, "expect: the tasks solved")
	stopEarly := fs.Bool("stop", false, "check, expect: stop the go test command given after -- once the first failure is settled")
	all := fs.Bool("all", false, "timeout: for a run without -failfast, where every test may fail")
	upto := fs.Int("upto", 0, "check: the last task whose tests run (default: the lesson's last)")
	_ = fs.Parse(os.Args[2:])

	l, err := index.ReadLesson(*indexFile, *number)
	if err == nil {
		switch cmd {
		case "check":
			err = checkCommand(fs.Args(), os.Stdout, l, *upto, *resultFile, *logFile, *failuresFile, *verbose, *stopEarly)
		case "hint":
			err = hint(os.Stdout, l, *task, *seen, *resultFile)
		case "expect":
			err = expectCommand(fs.Args(), os.Stdout, l, *done, *stopEarly)
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
	fmt.Fprintln(os.Stderr, "usage: todos check|hint|expect|timeout -index lessons/index.json -lesson N [...]")
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

// states returns each task's state, in the order of l.Todos.
func states(l index.Lesson, r *run) []state {
	out := make([]state, len(l.Todos))
	for i, t := range l.Todos {
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
func checkCommand(args []string, w io.Writer, l index.Lesson, upto int, resultFile, logFile, failuresFile string, verbose, stopEarly bool) error {
	if upto == 0 {
		upto = len(l.Todos)
	}
	r, err := goTestRun(args, l, upto, stopEarly, w)
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
func goTestRun(args []string, l index.Lesson, upto int, stopEarly bool, progress io.Writer) (*run, error) {
	r := newRun()
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
	for i, t := range l.Todos {
		fmt.Fprintln(w, l.Row(i, st[i].String()))
		if st[i] == failing && shown == nil {
			f := r.failure(t.Tests)
			shown = &f
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
		status := 0
		if r.failed {
			status = 1
		}
		if err := os.MkdirAll(filepath.Dir(resultFile), 0o755); err != nil {
			return err
		}
		// The fifth field says whether a failure was shown: make check-N points to it.
		said := 0
		if shown != nil && len(shown.lines) > 0 || len(r.build) > 0 {
			said = 1
		}
		line := fmt.Sprintf("%d %d %d %d %d\n", count, len(l.Todos), status, first, said)
		if err := os.WriteFile(resultFile, []byte(line), 0o644); err != nil {
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
func expectCommand(args []string, w io.Writer, l index.Lesson, solved int, stopEarly bool) error {
	r, err := goTestRun(args, l, min(solved+1, len(l.Todos)), stopEarly, w)
	if err != nil {
		return err
	}
	return expect(r, w, l, solved)
}

// expect says whether, in what go test said (r), tasks 1 to solved are done and task
// solved+1 is failing.
func expect(r *run, w io.Writer, l index.Lesson, solved int) error {
	st := states(l, r)
	var problems []string
	for i, t := range l.Todos {
		switch {
		case t.ID <= solved && st[i] != done:
			problems = append(problems, fmt.Sprintf("task %d is solved but %s", t.ID, st[i]))
		case t.ID == solved+1 && st[i] == notRun && len(r.other) > 0:
			problems = append(problems, fmt.Sprintf("task %d's tests did not run: a package failed outside its tests (below)", t.ID))
		case t.ID == solved+1 && st[i] != failing:
			problems = append(problems, fmt.Sprintf("task %d is not solved but %s: none of its tests (%s) fails without it, or a later task's test failed first", t.ID, st[i], strings.Join(t.Tests, ", ")))
		case t.ID > solved+1 && st[i] == done:
			problems = append(problems, fmt.Sprintf("task %d is not solved but done: its tests (%s) pass without it", t.ID, strings.Join(t.Tests, ", ")))
		}
	}
	if len(r.build) > 0 {
		problems = append(problems, "the lesson does not build:\n"+strings.Join(r.build, ""))
	}
	if r.ran() {
		fmt.Fprintf(w, "the tests ran for %.1fs\n", r.elapsed().Seconds())
	}
	// What the step waited for last: a failing test that waits for what never comes
	// takes its Eventually's whole time.
	if solved < len(l.Todos) {
		if name, ok := r.firstFailure(l.Todos[solved]); ok {
			fmt.Fprintf(w, "task %d failed first in %s, after %.1fs\n", solved+1, name, r.seconds[name])
		}
	}
	if len(problems) == 0 {
		fmt.Fprintf(w, "lesson %d with tasks 1-%d solved: exactly those done, task %d failing\n", l.Number, solved, solved+1)
		return nil
	}
	fmt.Fprintf(w, "lesson %d with tasks 1-%d solved:\n  %s\n", l.Number, solved, strings.Join(problems, "\n  "))
	for _, line := range r.other {
		fmt.Fprintf(w, "  %s\n", line)
	}
	return errFailed{}
}

// failingTestTime bounds what a failing test takes: gomega's Eventually gives up after
// 5s (shared/testenv), a test rarely waits on more than one, and the few whose wait is
// paced by a clock of their own (a lease's retry) add a few seconds.
const failingTestTime = 15 * time.Second

// timeout prints go test's -timeout for the lesson: its own, sized for a run that stops
// at the first failure; with all, where every test may fail and wait out an Eventually,
// as much again for each of its tests.
func timeout(w io.Writer, l index.Lesson, all bool) error {
	d, err := time.ParseDuration(l.Timeout)
	if err != nil {
		return fmt.Errorf("lesson %d: timeout %q: %w", l.Number, l.Timeout, err)
	}
	if all {
		for _, t := range l.Todos {
			d += time.Duration(len(t.Tests)) * failingTestTime
		}
	}
	fmt.Fprintln(w, d)
	return nil
}

// hint prints the next hint of a task, and remembers that it was shown.
func hint(w io.Writer, l index.Lesson, id int, seenDir, resultFile string) error {
	if id == 0 {
		first, err := firstNotDone(resultFile)
		if err != nil {
			return err
		}
		if first == 0 {
			fmt.Fprintf(w, "Every task of lesson %d was done at your last check. Next: make lesson-%d\n", l.Number, l.Number)
			return nil
		}
		id = first
	}
	if id < 1 || id > len(l.Todos) {
		return fmt.Errorf("lesson %d has the tasks 1 to %d (T=%d)", l.Number, len(l.Todos), id)
	}
	t := l.Todos[id-1]
	seen := filepath.Join(seenDir, fmt.Sprintf("%s.%d", filepath.Base(l.Folder), id))
	shown := 0
	if b, err := os.ReadFile(seen); err == nil {
		shown, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	next := min(shown, len(t.Hints)-1)
	fmt.Fprintf(w, "TODO(%d) %s (%s:%d)\n", t.ID, t.Title, filepath.Join(l.Folder, t.File), t.Line)
	for i := 0; i <= next; i++ {
		fmt.Fprintf(w, "  Hint %d of %d: %s\n", i+1, len(t.Hints), t.Hints[i])
	}
	if next == len(t.Hints)-1 {
		fmt.Fprintf(w, "That is every hint. The solution's code: make diff-%d\n", l.Number)
	} else {
		fmt.Fprintf(w, "Another hint: make hint-%d T=%d\n", l.Number, t.ID)
	}
	if err := os.MkdirAll(seenDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(seen, []byte(strconv.Itoa(next+1)+"\n"), 0o644)
}

func firstNotDone(resultFile string) (int, error) {
	b, err := os.ReadFile(resultFile)
	if errors.Is(err, os.ErrNotExist) {
		return 1, nil // never checked: the first task
	}
	if err != nil {
		return 0, err
	}
	fields := strings.Fields(string(b))
	if len(fields) < 4 {
		return 1, nil
	}
	return strconv.Atoi(fields[3])
}
