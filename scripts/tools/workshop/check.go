package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/symptoms"
)

// workshop check N runs lesson N's tests against the learner's code: the very tests
// solution N passes, and prints the lesson's checklist (the todos tool): each task (a
// TODO(k) in the code) done, failing or not run yet. A task is done when the tests its
// solution names (lessons/index.json) pass. The tasks' tests run first, alone, and stop
// at the first failure, which is the task to work on: its failure is shown in a line or
// two, with the command for a hint. Once every task is done, the solution's other tests
// run too: the behaviour the lesson keeps from earlier lessons. The CRDs are regenerated
// first, since the lesson's markers are the learner's too.
//
//	ALL=1               run every test, not only up to the first failure
//	TESTENV_VERBOSE=1   show the manager's logs too
//	V=1                 show go test's whole output
func checkCommand(root string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: workshop check N")
	}
	l, err := readLesson(root, args[0])
	if err != nil {
		return err
	}
	if l.StartsEmpty {
		return capstoneCheck(root, l) // capstone.go: graded from outside
	}
	if err := generateLesson(root, filepath.Join(root, l.Folder), generate); err != nil {
		return err
	}
	todos, err := buildTool(root, "todos")
	if err != nil {
		return err
	}
	return check(root, l, todos, os.Getenv("ALL") != "", os.Getenv("V") != "")
}

// check runs the todos tool (todos, its path) on lesson l's tests and says what comes
// next from the result it wrote.
func check(root string, l index.Lesson, todos string, all, verbose bool) (err error) {
	name := filepath.Base(l.Folder)
	// A test that never returns is stopped after the lesson's timeout, and shown failing
	// where it is stuck. The test binaries are linked without debug information
	// (-ldflags=-w): every check links them anew, and a failure's stack needs none of it.
	timeout, err := l.TestTimeout(all)
	if err != nil {
		return err
	}
	cache := filepath.Join(root, ".cache", "check")
	logFile := filepath.Join(cache, name+".log")
	failures := filepath.Join(cache, name+".failures")
	resultFile := result.Path(root, name)
	args := []string{"check", "-index", filepath.Join(root, "lessons", "index.json"), "-lesson", strconv.Itoa(l.Number),
		"-log", logFile, "-failures", failures, "-result", resultFile}
	if verbose {
		args = append(args, "-v")
	}
	goTest := []string{"go", "test", "-count=1", "-json", "-ldflags=-w", "-timeout", timeout.String()}
	upTo := ""
	if !all {
		// todos stops go test once the first failure is settled: the other packages'
		// tests can only decide later tasks.
		args = append(args, "-stop")
		goTest = append(goTest, "-failfast")
		upTo = ", up to the first failure"
	}
	say("Running the tests of lessons/%s%s", name, upTo)
	// A stopped go test leaves its temporary files (its build folder, the control
	// plane's data: over 100 MB a run) behind: they go in a folder of their own, removed
	// after.
	tmp := filepath.Join(cache, name+".tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	defer removeTemp(tmp, &err)
	// A result from before this run must not pass for this run's.
	if err := os.Remove(resultFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// On Linux a test binary that ends without stopping its control plane takes it
	// along (shared/testenv); should anything outlive the tests all the same, it is
	// stopped here.
	mark := processMark("check")
	// A test task's row is its grade (testtask.go), found first.
	grades, err := gradeTestTasks(root, l, filepath.Join(root, l.Folder), filepath.Join(cache, name+".grades.json"), append(gradingEnv(root, mark), "TMPDIR="+tmp))
	if err != nil {
		return err
	}
	if grades != "" {
		args = append(args, "-grades", grades)
	}
	cmd := exec.Command(todos, append(append(args, "--"), goTest...)...)
	cmd.Dir = filepath.Join(root, l.Folder)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, mark)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, stderr
	runErr := cmd.Run()
	stopSurvivors(mark)
	// todos ends with 1 when a test failed, which the result says; anything else means
	// there is no result to read.
	var exit *exec.ExitError
	testsFailed := errors.As(runErr, &exit) && exit.ExitCode() == 1
	if runErr != nil && !testsFailed {
		return errors.New("could not read the test run (see above)")
	}
	res, err := result.Read(resultFile)
	if err != nil {
		return fmt.Errorf("could not read the test run (see above): %w", err)
	}
	return summarize(root, l, res)
}

// summarize says what comes next after a check whose result is res.
func summarize(root string, l index.Lesson, res result.Result) error {
	name := filepath.Base(l.Folder)
	if res.Complete() {
		say("All %d tasks of lessons/%s are done. Compare with the solution (make diff-%d), then watch it work: make lesson-%d", res.Total, name, l.Number, l.Number)
		return nil
	}
	// Only the failure shown: a passing test may provoke a known symptom on purpose,
	// and a failing test's manager may log one that is no news.
	if k, err := symptoms.Read(root); err == nil {
		k.Explain(stderr, filepath.Join(root, ".cache", "check", name+".failures"))
	} else {
		warn("cannot look for known problems: %v", err)
	}
	log := filepath.Join(".cache", "check", name+".log")
	if res.Shown {
		warn("%d of %d tasks done; the first failure, above, says what to fix next. (Full output: %s)", res.Done, res.Total, log)
	} else {
		warn("%d of %d tasks done; go test failed without saying which test: its full output is in %s", res.Done, res.Total, log)
	}
	warn("TESTENV_VERBOSE=1 make check-%d adds your controller's logs; docs/lesson-%02d.md explains each task.", l.Number, l.Number)
	return errFailed{}
}
