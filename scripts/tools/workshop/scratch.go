package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// The maintainers' checks of the lessons (workshop steps, workshop mistakes) write each
// stage they try into a scratch checkout of its own, and run its tests as make check-N
// does. This file holds what they share.

// lessonRow is one lesson of `lessongen tracks`: its track, folder and number of tasks.
type lessonRow struct {
	track, folder string
	tasks         int
}

// mistakeRow is one marked mistake of `lessongen mistakes`: the solution folder it is
// made in, its task (0: of no task), its name and the words its check must show.
type mistakeRow struct {
	folder string
	task   int
	name   string
	says   string
}

// lessongenRows runs lessongen with args and returns its tab-separated rows.
func lessongenRows(lessongen, root string, args ...string) ([][]string, error) {
	cmd := exec.Command(lessongen, append([]string{"-root", root}, args...)...)
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("lessongen %s: %w", strings.Join(args, " "), err)
	}
	var rows [][]string
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		if lines.Text() != "" {
			rows = append(rows, strings.Split(lines.Text(), "\t"))
		}
	}
	return rows, lines.Err()
}

// readLessonRows returns every lesson of the tracks, or of track only when it is not "".
func readLessonRows(lessongen, root, track string) ([]lessonRow, error) {
	rows, err := lessongenRows(lessongen, root, "tracks")
	if err != nil {
		return nil, err
	}
	var out []lessonRow
	for _, r := range rows {
		if len(r) != 3 {
			return nil, fmt.Errorf("lessongen tracks: a row of %d fields, want track, folder, tasks: %q", len(r), r)
		}
		tasks, err := strconv.Atoi(r[2])
		if err != nil {
			return nil, fmt.Errorf("lessongen tracks: %s's tasks: %w", r[1], err)
		}
		if track == "" || track == r[0] {
			out = append(out, lessonRow{track: r[0], folder: r[1], tasks: tasks})
		}
	}
	return out, nil
}

// readMistakeRows returns every marked mistake of the tracks, or of track only.
func readMistakeRows(lessongen, root, track string) ([]mistakeRow, error) {
	lessons, err := readLessonRows(lessongen, root, track)
	if err != nil {
		return nil, err
	}
	inTrack := map[string]bool{}
	for _, l := range lessons {
		inTrack[l.folder] = true
	}
	rows, err := lessongenRows(lessongen, root, "mistakes")
	if err != nil {
		return nil, err
	}
	var out []mistakeRow
	for _, r := range rows {
		if len(r) != 4 {
			return nil, fmt.Errorf("lessongen mistakes: a row of %d fields, want folder, task, name, words: %q", len(r), r)
		}
		task, err := strconv.Atoi(r[1])
		if err != nil {
			return nil, fmt.Errorf("lessongen mistakes: %s's task: %w", r[2], err)
		}
		if inTrack[r[0]] {
			out = append(out, mistakeRow{folder: r[0], task: task, name: r[2], says: r[3]})
		}
	}
	return out, nil
}

// checks holds what every scratch stage needs: the checkout, its tools, and how its
// tests are built.
type checks struct {
	root      string
	lessongen string
	todos     string
	// buildFlags go to go vet and go test. -trimpath: Go keys a package's compiled code
	// by its folder too, and every scratch checkout has a new one; without the folder
	// in the key, a package that a step left as the step before had it is compiled
	// once. The compiler and the linker run at the lowest priority (-toolexec nice), the
	// tests at the usual one: the tests of one step do not wait on the build of the
	// other, and their time is close to what a learner's make check-N waits on an idle
	// machine. BUILD_FLAGS replaces -trimpath.
	buildFlags []string
	mark       string        // the environment marker of every process the checks start
	suite      *gradingSuite // the capstone's, for its mistakes
}

func newChecks(root, name string) (*checks, error) {
	lessongen, err := buildTool(root, "lessongen")
	if err != nil {
		return nil, err
	}
	todos, err := buildTool(root, "todos")
	if err != nil {
		return nil, err
	}
	flags := []string{"-trimpath"}
	if v, ok := os.LookupEnv("BUILD_FLAGS"); ok {
		flags = strings.Fields(v)
	}
	return &checks{root: root, lessongen: lessongen, todos: todos,
		buildFlags: append(flags, "-toolexec=nice -n 19"), mark: processMark(name), suite: newGradingSuite(root)}, nil
}

// prepareChecks reads the arguments of workshop steps and mistakes ([TRACK]) and
// returns their checks, the track ("" for every one) and the lessons' index.
func prepareChecks(root, name string, args []string) (*checks, string, []index.Lesson, error) {
	if len(args) > 1 {
		return nil, "", nil, fmt.Errorf("usage: workshop %s [TRACK]", name)
	}
	track := ""
	if len(args) == 1 {
		track = args[0]
	}
	c, err := newChecks(root, name)
	if err != nil {
		return nil, "", nil, err
	}
	indexed, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	return c, track, indexed, err
}

// freshFolder empties, or makes, the folder .cache/test/NAME of the checkout root, for
// a run's logs and results, and returns it.
func freshFolder(root, name string) (string, error) {
	dir := filepath.Join(root, ".cache", "test", name)
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// jobs is how many steps run at a time: JOBS, or 2. A step keeps about one core busy;
// three at a time on two cores took as long in all, and each step's tests a third
// longer.
func jobs() int {
	if n, err := strconv.Atoi(os.Getenv("JOBS")); err == nil && n > 0 {
		return n
	}
	return 2
}

// inParallel runs do(i) for i in 0..n-1, at most jobs() at a time, in that order.
func inParallel(n int, do func(i int)) {
	slots := make(chan struct{}, jobs())
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			do(i)
		}()
	}
	wg.Wait()
}

// scratchStage writes kind/folder (solutions or lessons) as lessongen does with args
// into a new scratch checkout, with what controller-gen derives, and returns its folder
// and the checkout's, which the caller removes.
func (c *checks) scratchStage(kind, folder string, log *os.File, args ...string) (dir, top string, err error) {
	top, err = os.MkdirTemp("", "workshop-scratch-")
	if err != nil {
		return "", "", err
	}
	for _, sub := range []string{"solutions", "lessons", "tmp"} {
		if err := os.MkdirAll(filepath.Join(top, sub), 0o755); err != nil {
			return "", top, err
		}
	}
	if err := os.Symlink(filepath.Join(c.root, "shared"), filepath.Join(top, "shared")); err != nil {
		return "", top, err
	}
	dir = filepath.Join(top, kind, folder)
	n, err := strconv.Atoi(strings.SplitN(folder, "-", 2)[0])
	if err != nil {
		return "", top, fmt.Errorf("%s: no lesson number", folder)
	}
	lessongenArgs := append([]string{"-root", c.root, strings.TrimSuffix(kind, "s"), "-to", dir}, args...)
	if err := c.run(log, "", c.lessongen, append(lessongenArgs, strconv.Itoa(n))...); err != nil {
		return "", top, err
	}
	cache, err := generatedCache(c.root)
	if err != nil {
		return "", top, err
	}
	if err := cache.GenerateLike(dir, filepath.Join(c.root, kind, folder)); err != nil {
		return "", top, err
	}
	// The module uses shared/ where it is, not through the scratch checkout's link: Go
	// keys the build cache of a package by its folder too, so every scratch checkout
	// would compile shared/'s packages anew (about a tenth of a step's time).
	err = c.run(log, dir, "go", "mod", "edit", "-replace", "github.com/kube-workshop/operator-workshop/shared="+filepath.Join(c.root, "shared"))
	return dir, top, err
}

// stageTests runs the tests of the scratch stage dir as make check-N does, by todos
// with args (check or expect, and their flags, which say the tasks whose tests run):
// the tasks' tests in the packages that hold them, stopped once the first failure is
// settled, then, once every task is done, the others. go test's temporary files (its
// build folder, the control plane's data) go in the scratch checkout: a go test stopped
// early leaves them behind. todos's exit status 1 (a task not done, a step not as
// expected) is no error here: the result it wrote says.
func (c *checks) stageTests(dir string, l index.Lesson, log *os.File, args ...string) error {
	timeout, err := l.TestTimeout(false)
	if err != nil {
		return err
	}
	top := filepath.Dir(filepath.Dir(dir))
	todosArgs := append([]string{args[0], "-index", filepath.Join(c.root, "lessons", "index.json"), "-lesson", strconv.Itoa(l.Number)}, args[1:]...)
	todosArgs = append(todosArgs, "-stop", "--", "go", "test")
	todosArgs = append(todosArgs, c.buildFlags...)
	todosArgs = append(todosArgs, "-json", "-count=1", "-failfast", "-vet=off", "-ldflags=-w", "-timeout", timeout.String())
	cmd := exec.Command(c.todos, todosArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "KUBEBUILDER_ASSETS="+filepath.Join(c.root, ".cache", "bin", "current"),
		"TMPDIR="+filepath.Join(top, "tmp"), c.mark)
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
		return nil
	}
	return err
}

// run runs name with args in dir ("" for here), its output into log, with the checks'
// process marker.
func (c *checks) run(log *os.File, dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", c.mark)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", filepath.Base(name), strings.Join(args, " "), err)
	}
	return nil
}

// noSurvivors fails, naming them, when processes the checks started still run; it stops
// them first, so that a failed run does not hold the machine's memory.
func (c *checks) noSurvivors(what string) error {
	if left := stopSurvivors(c.mark); len(left) > 0 {
		return fmt.Errorf("%s left processes running (stopped now):\n  %s", what, strings.Join(left, "\n  "))
	}
	return nil
}

// tail returns the last n lines of the file name.
func tail(name string, n int) string {
	b, _ := os.ReadFile(name)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
