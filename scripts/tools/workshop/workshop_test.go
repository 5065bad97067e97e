package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stage"
)

var testLesson = index.Lesson{Number: 1, Title: "x", Folder: "lessons/01-x", Timeout: "60s", Todos: []index.Todo{
	{ID: 1, Title: "Validate", File: "api/v1/x_types.go", Line: 11, Hints: []string{"h1", "h2"}, Tests: []string{"TestAPI"}},
	{ID: 2, Title: "Scale up", File: "internal/controller/x.go", Line: 90, Hints: []string{"h1", "h2", "h3"}, Tests: []string{"TestScaleUp"}},
	{ID: 3, Title: "Scale down", File: "internal/controller/x.go", Line: 120, Hints: []string{"h1"}, Tests: []string{"TestScaleDown"}},
}}

// write writes files (path: content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// captureStderr collects what the commands say on stderr during the test.
func captureStderr(t *testing.T) *bytes.Buffer {
	var b bytes.Buffer
	old := stderr
	stderr = &b
	t.Cleanup(func() { stderr = old })
	return &b
}

func TestHintShowsTheNextHintEachTimeFromTheFirstTaskNotDone(t *testing.T) {
	root := t.TempDir()
	if err := result.Write(result.Path(root, testLesson.Folder), result.Result{Done: 1, Total: 3, Failed: true, First: 2, Shown: true}); err != nil {
		t.Fatal(err)
	}
	var outs []string
	for range 4 {
		var out bytes.Buffer
		if err := hint(&out, root, testLesson, 0); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out.String())
	}
	if !strings.Contains(outs[0], "TODO(2) Scale up (lessons/01-x/internal/controller/x.go:90)") ||
		!strings.Contains(outs[0], "Hint 1 of 3: h1") || strings.Contains(outs[0], "Hint 2") || !strings.Contains(outs[0], "Another hint: make hint-1 T=2") {
		t.Errorf("first hint:\n%s", outs[0])
	}
	if !strings.Contains(outs[1], "Hint 2 of 3: h2") || strings.Contains(outs[1], "Hint 3") {
		t.Errorf("second hint:\n%s", outs[1])
	}
	for _, out := range outs[2:] {
		if !strings.Contains(out, "Hint 3 of 3: h3") || !strings.Contains(out, "That is every hint. The solution's code: make diff-1") {
			t.Errorf("last hint:\n%s", out)
		}
	}
	var out bytes.Buffer
	if err := hint(&out, root, testLesson, 7); err == nil || !strings.Contains(err.Error(), "lesson 1 has the tasks 1 to 3 (T=7)") {
		t.Errorf("T=7: %v", err)
	}
	write(t, root, map[string]string{"lessons/01-x/go.mod": "module x\n"})
	if err := index.Write(filepath.Join(root, "lessons/index.json"), []index.Lesson{testLesson}); err != nil {
		t.Fatal(err)
	}
	if err := hintCommand(root, []string{"1", "x"}); err == nil || !strings.Contains(err.Error(), "task T must be a number, as in TODO(3): make hint-1 T=3 (got 'x')") {
		t.Errorf("T=x: %v", err)
	}
}

func TestHintWithoutACheckIsTheFirstTaskAndAfterTheLastNone(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	if err := hint(&out, root, testLesson, 0); err != nil || !strings.Contains(out.String(), "TODO(1) Validate") {
		t.Errorf("never checked: %v\n%s", err, out.String())
	}
	if err := result.Write(result.Path(root, testLesson.Folder), result.Result{Done: 3, Total: 3}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := hint(&out, root, testLesson, 0); err != nil || out.String() != "Every task of lesson 1 was done at your last check. Next: make lesson-1\n" {
		t.Errorf("all done: %v\n%s", err, out.String())
	}
}

// gitCheckout makes a git repository of files, committed.
func gitCheckout(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	write(t, root, files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

func TestProgressSaysNotStartedKOfNChangedSinceAndDone(t *testing.T) {
	root := gitCheckout(t, map[string]string{
		"lessons/01-done/x.go":      "// TODO(1) a\n// TODO(2) b\n",
		"lessons/02-halfway/x.go":   "// TODO(1) a\n// TODO(2) b\n// TODO(3) c\n",
		"lessons/03-changed/x.go":   "// TODO(1) a\n",
		"lessons/04-untouched/x.go": "// TODO(1) a\n// TODO(2) b\n// TODO(1) again\n",
		"lessons/05-started/x.go":   "// TODO(1) a\n",
		"lessons/index.json":        "{}",
	})
	write(t, root, map[string]string{"lessons/05-started/x.go": "// TODO(1) a, begun\n"})
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	for name, r := range map[string]result.Result{
		"01-done":    {Done: 2, Total: 2},
		"02-halfway": {Done: 1, Total: 3, Failed: true, First: 2, Shown: true},
		"03-changed": {Done: 0, Total: 1, Failed: true, First: 1, Shown: true},
	} {
		file := result.Path(root, name)
		if err := result.Write(file, r); err != nil {
			t.Fatal(err)
		}
		when := future // checked after every edit
		if name == "03-changed" {
			when = past // edited after the check
		}
		if err := os.Chtimes(file, when, when); err != nil {
			t.Fatal(err)
		}
	}
	said := captureStderr(t)
	var out bytes.Buffer
	if err := progress(&out, root); err != nil {
		t.Fatal(err)
	}
	want := "  01-done                      done\n" +
		"  02-halfway                   1 of 3 tasks done; next: TODO(2)\n" +
		"  03-changed                   0 of 1 tasks done at the last check; changed since\n" +
		"  04-untouched                 not started (2 tasks)\n" +
		"  05-started                   started, not checked yet\n"
	if out.String() != want {
		t.Errorf("progress printed\n%s\nwant\n%s", out.String(), want)
	}
	if !strings.Contains(said.String(), "Next: make check-2 (or make watch-2) and TODO(2); make hint-2 gives a hint") {
		t.Errorf("progress said %q", said.String())
	}
}

func TestProgressSaysEveryLessonIsDone(t *testing.T) {
	root := gitCheckout(t, map[string]string{"lessons/01-done/x.go": "// TODO(1) a\n"})
	file := result.Path(root, "01-done")
	if err := result.Write(file, result.Result{Done: 1, Total: 1}); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, future, future); err != nil {
		t.Fatal(err)
	}
	said := captureStderr(t)
	var out bytes.Buffer
	if err := progress(&out, root); err != nil || !strings.Contains(said.String(), "Every lesson is done.") {
		t.Errorf("%v: %s%s", err, out.String(), said.String())
	}
}

func TestResetWritesTheLessonWithItsSolutionsOutputsAndForgetsItsCheck(t *testing.T) {
	root := t.TempDir()
	module := map[string]string{
		"go.mod":            "module example.com/x\n",
		"api/v1/x_types.go": "package v1\ntype X struct{}\n",
	}
	solution := filepath.Join(root, "solutions/01-x")
	write(t, solution, module)
	write(t, solution, map[string]string{"config/crd/bases/x.yaml": "the solution's CRD\n"})
	write(t, root, map[string]string{
		".cache/hints/01-x.2":  "1\n",
		".cache/hints/02-y.1":  "1\n",
		"lessons/01-x/mine.go": "package x // the learner's\n",
	})
	if err := result.Write(result.Path(root, "01-x"), result.Result{Done: 1, Total: 3}); err != nil {
		t.Fatal(err)
	}
	writeLesson := func(dir string, n int) error {
		if n != 1 {
			t.Errorf("wrote lesson %d, want 1", n)
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		write(t, dir, module)
		return nil
	}
	generated := 0
	cache := stage.Cache{Dir: t.TempDir(), Key: "k", Generate: func(string) error { generated++; return nil }}
	captureStderr(t)
	if err := reset(root, testLesson, writeLesson, cache); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "lessons/01-x/config/crd/bases/x.yaml")); string(b) != "the solution's CRD\n" || generated != 0 {
		t.Errorf("the lesson's CRD = %q, %v, after %d runs of controller-gen; want the solution's, none", b, err, generated)
	}
	for _, gone := range []string{".cache/hints/01-x.2", "lessons/01-x/mine.go", ".cache/check/01-x.result.json"} {
		if _, err := os.Stat(filepath.Join(root, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".cache/hints/02-y.1")); err != nil {
		t.Errorf("another lesson's hints went: %v", err)
	}
}

func TestGenerateLessonRunsControllerGenOnlyWhenItsInputsOrOutputsChanged(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "lessons/01-x")
	write(t, dir, map[string]string{"go.mod": "module example.com/x\n", "api/v1/x_types.go": "package v1\ntype X struct{}\n", "internal/x.go": "package x\n"})
	runs := 0
	gen := func(_, dir string) error {
		runs++
		write(t, dir, map[string]string{"config/crd/bases/x.yaml": "crd\n"})
		return nil
	}
	said := captureStderr(t)
	step := func(want int, why string) {
		t.Helper()
		if err := generateLesson(root, dir, gen); err != nil || runs != want {
			t.Errorf("%s: %v, %d runs; want %d\n%s", why, err, runs, want, said.String())
		}
	}
	step(1, "first check")
	step(1, "nothing changed")
	write(t, dir, map[string]string{"internal/x.go": "package x // edited\n"})
	step(1, "code changed, no marker")
	write(t, dir, map[string]string{"internal/x.go": "package x\n// +kubebuilder:rbac:groups=x,resources=xs,verbs=get\n"})
	step(2, "a marker changed")
	write(t, dir, map[string]string{"config/crd/bases/x.yaml": "edited by hand\n"})
	step(3, "a generated file changed")
	if !strings.Contains(said.String(), "The CRDs and RBAC of lessons/01-x are up to date with your markers") ||
		!strings.Contains(said.String(), "Regenerating the CRDs and RBAC of lessons/01-x from your API types and markers") {
		t.Errorf("said:\n%s", said.String())
	}
}

func TestWaitForSaveReturnsTheFileSavedNotARegeneratedOne(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"x.go": "package x\n", "config/rbac/role.yaml": "x\n"})
	since := time.Now().Add(time.Hour)
	stop := make(chan struct{})
	got := make(chan string)
	go func() {
		file, _ := waitForSave(dir, since, 10*time.Millisecond, stop)
		got <- file
	}()
	later := since.Add(time.Second)
	if err := os.Chtimes(filepath.Join(dir, "config/rbac/role.yaml"), later, later); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-got:
		t.Fatalf("waitForSave returned %q for a regenerated file", f)
	case <-time.After(100 * time.Millisecond):
	}
	if err := os.Chtimes(filepath.Join(dir, "x.go"), later, later); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-got:
		if f != "x.go" {
			t.Errorf("waitForSave = %q, want x.go", f)
		}
	case <-time.After(5 * time.Second):
		close(stop)
		t.Fatal("waitForSave did not see x.go saved")
	}
}

// fakeTodos is a todos tool that records its arguments, prints a checklist, writes the
// result $RESULT and the failures $FAILURES, and exits $STATUS.
const fakeTodos = `#!/bin/sh
echo "$@" >"$ARGS"
echo "lessons/01-x: 1 of 3 tasks done"
while [ "$1" != "--" ]; do
  case $1 in
  -result) printf '%s' "$RESULT" >"$2" ;;
  -failures) printf '%s\n' "$FAILURES" >"$2" ;;
  esac
  shift
done
exit $STATUS
`

// checkout is a checkout with lesson 1 and the real table of known symptoms.
func checkoutWithSymptoms(t *testing.T) string {
	root := t.TempDir()
	for _, name := range []string{"scripts/lib/symptoms.tsv", "shared/TROUBLESHOOTING.md"} {
		src, err := os.ReadFile(filepath.Join("../../..", name))
		if err != nil {
			t.Fatal(err)
		}
		write(t, root, map[string]string{name: string(src)})
	}
	write(t, root, map[string]string{"lessons/01-x/go.mod": "module x\n", "todos": fakeTodos})
	if err := os.Chmod(filepath.Join(root, "todos"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestCheckSaysWhatToFixAndTheKnownProblemTheFailureShows(t *testing.T) {
	root := checkoutWithSymptoms(t)
	args := filepath.Join(root, "args")
	t.Setenv("ARGS", args)
	t.Setenv("RESULT", `{"done": 1, "total": 3, "failed": true, "first": 2, "shown": true}`)
	t.Setenv("FAILURES", "Operation cannot be fulfilled on imoocpods: the object has been modified; please apply your changes to the latest version")
	t.Setenv("STATUS", "1")
	said := captureStderr(t)
	err := check(root, testLesson, filepath.Join(root, "todos"), false, false)
	if !errors.As(err, new(errFailed)) {
		t.Errorf("check = %v, want errFailed", err)
	}
	for _, want := range []string{
		"Running the tests of lessons/01-x, up to the first failure",
		"Known problems, explained in shared/TROUBLESHOOTING.md:",
		"the object has been modified",
		"1 of 3 tasks done; the first failure, above, says what to fix next. (Full output: .cache/check/01-x.log)",
		"TESTENV_VERBOSE=1 make check-1 adds your controller's logs; docs/lesson-01.md explains each task.",
	} {
		if !strings.Contains(said.String(), want) {
			t.Errorf("check said\n%s\nwant %q", said.String(), want)
		}
	}
	b, _ := os.ReadFile(args)
	for _, want := range []string{"-lesson 1 ", " -stop -- go test -count=1 -json -ldflags=-w -timeout 1m0s -failfast"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("todos ran with %q, want %q in it", b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".cache/check/01-x.tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("go test's temporary folder stayed: %v", err)
	}
}

func TestCheckSaysWhenEveryTaskIsDone(t *testing.T) {
	root := checkoutWithSymptoms(t)
	t.Setenv("ARGS", filepath.Join(root, "args"))
	t.Setenv("RESULT", `{"done": 3, "total": 3, "failed": false, "first": 0, "shown": false}`)
	t.Setenv("STATUS", "0")
	said := captureStderr(t)
	if err := check(root, testLesson, filepath.Join(root, "todos"), true, false); err != nil {
		t.Fatal(err)
	}
	if want := "All 3 tasks of lessons/01-x are done. Compare with the solution (make diff-1), then watch it work: make lesson-1"; !strings.Contains(said.String(), want) {
		t.Errorf("check said\n%s\nwant %q", said.String(), want)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "args")); strings.Contains(string(b), "-stop") || !strings.Contains(string(b), "-timeout 1m45s") {
		t.Errorf("ALL=1: todos ran with %q", b)
	}
}

func TestCheckSaysWhenItCouldNotReadTheTestRun(t *testing.T) {
	root := checkoutWithSymptoms(t)
	t.Setenv("ARGS", filepath.Join(root, "args"))
	t.Setenv("RESULT", `{"done": 3, "total": 3}`) // from before: not this run's
	t.Setenv("STATUS", "2")
	captureStderr(t)
	if err := check(root, testLesson, filepath.Join(root, "todos"), false, false); err == nil || err.Error() != "could not read the test run (see above)" {
		t.Errorf("check = %v", err)
	}
}

// A process that carries the check's mark and outlived it (a control plane in a group
// of its own) is stopped; another is left alone.
func TestStopSurvivorsStopsOnlyTheMarkedProcesses(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc: survivors are not looked for here")
	}
	mark := processMark("test")
	start := func(env ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "30")
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		return cmd
	}
	marked, other := start(mark), start(processMark("other"))
	exited := make(chan error, 1)
	go func() { exited <- marked.Wait() }()
	stopSurvivors(mark)
	select {
	case err := <-exited:
		// sleep 30 ends by itself only after the 5 seconds waited here: it must have
		// been killed.
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Errorf("the marked process ended with %v, not by SIGKILL", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the marked process still runs")
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the other process was stopped: %v", err)
	}
}

// The cache's key changes with what generates: scripts/generate.sh, crddesc's code, the
// list of outputs, and the binaries' folder (controller-gen's pin).
func TestGeneratedCacheKeyChangesWithTheGenerators(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	write(t, root, map[string]string{
		"scripts/generate.sh":                         "#!/bin/sh\n",
		"scripts/tools/crddesc/main.go":               "package main\n",
		"scripts/tools/internal/stage/generated.go":   "package stage\n",
		".cache/bin/kubernetes-v1-aaa/controller-gen": "",
	})
	if err := os.Symlink("kubernetes-v1-aaa", filepath.Join(root, ".cache/bin/current")); err != nil {
		t.Fatal(err)
	}
	key := func() string {
		t.Helper()
		c, err := generatedCache(root)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "operator-workshop", "generated"); c.Dir != want {
			t.Errorf("cache folder %s, want %s", c.Dir, want)
		}
		return c.Key
	}
	seen := map[string]string{}
	see := func(what string) {
		k := key()
		if other, ok := seen[k]; ok {
			t.Errorf("%s left the key as %s did: %s", what, other, k)
		}
		seen[k] = what
	}
	see("the first generators")
	if !strings.HasSuffix(key(), "-kubernetes-v1-aaa") {
		t.Errorf("key %s does not name the binaries' folder", key())
	}
	for _, name := range []string{"scripts/generate.sh", "scripts/tools/crddesc/main.go", "scripts/tools/internal/stage/generated.go"} {
		write(t, root, map[string]string{name: "// changed\n"})
		see(name)
	}
	if err := os.Remove(filepath.Join(root, ".cache/bin/current")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("kubernetes-v1-bbb", filepath.Join(root, ".cache/bin/current")); err != nil {
		t.Fatal(err)
	}
	see("new binaries")
}

// A failed test's failure, as a test task's row shows it: from the first line a _test.go
// file wrote, a few lines; without one, the output's last lines.
func TestAFailedGradingShowsTheTestsOwnLines(t *testing.T) {
	out := "logs\n=== RUN   TestX\n    x_test.go:12: \n        want 3 pods\n        got 2\n--- FAIL: TestX (0.01s)\nFAIL\n"
	got := failureLines(out)
	if len(got) == 0 || !strings.HasPrefix(strings.TrimSpace(got[0]), "x_test.go:12:") || !slices.Contains(got, "        want 3 pods") {
		t.Errorf("failureLines = %q, want them to start at x_test.go:12 and hold its message", got)
	}
	got = failureLines("a\nb\npanic: boom\n")
	if !slices.Equal(got, []string{"a", "b", "panic: boom"}) {
		t.Errorf("failureLines without a test's line = %q, want the last lines", got)
	}
	if name := packageName("// Package x.\npackage controller\n"); name != "controller" {
		t.Errorf("packageName = %q, want controller", name)
	}
}

// Two mistakes runs at once, every track's and one track's (make test's capstone lane),
// keep their results apart: the second does not empty the first's folder.
func TestMistakesRunsOfTwoTracksKeepTheirResultsApart(t *testing.T) {
	root := t.TempDir()
	all, err := mistakesResults(root, "")
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(all, "01-imoocpod-no-owner-reference.json")
	if err := os.WriteFile(result, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mistakesResults(root, "capstone"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(result); err != nil {
		t.Errorf("the capstone's mistakes run removed a result of the run of every track: %v", err)
	}
}
