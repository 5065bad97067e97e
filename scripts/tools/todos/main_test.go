package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

var testLesson = index.Lesson{Number: 1, Title: "x", Folder: "lessons/01-x", Todos: []index.Todo{
	{ID: 1, Title: "Validate", File: "api/v1/x_types.go", Line: 11, Hints: []string{"h1", "h2"}, Tests: []string{"TestAPI"}},
	{ID: 2, Title: "Scale up", File: "internal/controller/x.go", Line: 90, Hints: []string{"h1", "h2", "h3"}, Tests: []string{"TestScaleUp", "TestScaleUpTwice"}},
	{ID: 3, Title: "Scale down", File: "internal/controller/x.go", Line: 120, Hints: []string{"h1", "h2"}, Tests: []string{"TestScaleDown"}},
}}

// events writes go test -json's events of one package, pkg.
type events struct {
	pkg string
	b   strings.Builder
}

// add writes an event of test: its action, and what it printed for an output.
func (e *events) add(action, test, output string) {
	e.b.WriteString(`{"Action":"` + action + `","Package":"` + e.pkg + `","Test":"` + test + `","Output":` + quote(output) + "}\n")
}

// packageFailed writes the event that ends the package, failed.
func (e *events) packageFailed() {
	e.b.WriteString(`{"Action":"fail","Package":"` + e.pkg + `"}` + "\n")
}

func (e *events) String() string { return e.b.String() }

// controllerPackage is the package of a lesson's controller, as go test names it.
const controllerPackage = "example.com/workshop/lessons/01-x/internal/controller"

// goTest returns go test -json's events for tests that passed and failed, in order;
// the first failure prints a gomega-like message in a subtest.
func goTest(passed []string, failed string) string {
	ev := events{pkg: "p"}
	for _, name := range passed {
		ev.add("run", name, "")
		ev.add("output", name, "=== RUN   "+name+"\n")
		ev.add("pass", name, "")
	}
	if failed != "" {
		ev.add("run", failed, "")
		ev.add("output", failed+"/three", "    x_test.go:42: \n")
		ev.add("output", failed+"/three", "        the ImoocPod should have 3 pods\n")
		ev.add("output", failed+"/three", "        Expected\n            <int>: 0\n        to equal\n            <int>: 3\n")
		ev.add("fail", failed+"/three", "")
		ev.add("fail", failed, "")
		ev.packageFailed()
	}
	return ev.String()
}

// read is what go test said in stream.
func read(t *testing.T, stream string) *run {
	t.Helper()
	r := newRun()
	if err := r.read(strings.NewReader(stream), nil); err != nil {
		t.Fatal(err)
	}
	return r
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestCheckListsEveryTaskAndTheFirstFailure(t *testing.T) {
	resultFile := filepath.Join(t.TempDir(), "r")
	var out bytes.Buffer
	err := check(read(t, goTest([]string{"TestAPI", "TestScaleUp"}, "TestScaleUpTwice")), &out, testLesson, resultFile, "", "", false)
	failedSaying(t, err, out.String(),
		"1 of 3 tasks done",
		"done     TODO(1) Validate    api/v1/x_types.go:11",
		"failing  TODO(2) Scale up",
		"TestScaleUpTwice/three: the ImoocPod should have 3 pods",
		"Expected <int>: 0 to equal <int>: 3",
		"A hint: make hint-1 T=2",
		"not run  TODO(3) Scale down",
	)
	wantResult(t, resultFile, result.Result{Done: 1, Total: 3, Failed: true, First: 2, Shown: true})
	wantFailure(t, resultFile, 2, "TestScaleUpTwice/three: the ImoocPod should have 3 pods")
}

func TestCheckPassesWhenEveryTaskIsDone(t *testing.T) {
	var out bytes.Buffer
	err := check(read(t, goTest([]string{"TestAPI", "TestScaleUp", "TestScaleUpTwice", "TestScaleDown"}, "")), &out, testLesson, "", "", "", false)
	if err != nil || !strings.Contains(out.String(), "3 of 3 tasks done") {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
}

func TestCheckShowsBuildErrors(t *testing.T) {
	var out bytes.Buffer
	stream := `{"ImportPath":"p","Action":"build-output","Output":"x.go:3:1: undefined: foo\n"}` + "\n" +
		`{"ImportPath":"p","Action":"build-fail"}` + "\n"
	err := check(read(t, stream), &out, testLesson, "", "", "", false)
	if !errors.As(err, new(errFailed)) || !strings.Contains(out.String(), "undefined: foo") || !strings.Contains(out.String(), "0 of 3 tasks done") {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
}

func TestExpect(t *testing.T) {
	tests := map[string]struct {
		passed []string
		failed string
		solved int
		want   string // empty: expected as it is
	}{
		"first task":              {[]string{"TestAPI"}, "TestScaleUp", 1, ""},
		"none solved":             {nil, "TestAPI", 0, ""},
		"solved task not done":    {nil, "TestAPI", 1, "task 1 is solved but failing"},
		"next task passes anyway": {[]string{"TestAPI", "TestScaleUp", "TestScaleUpTwice"}, "TestScaleDown", 1, "task 2 is not solved but done"},
		"next task not run":       {[]string{"TestAPI"}, "TestScaleDown", 1, "task 2 is not solved but not run"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			step, err := expect(read(t, goTest(tt.passed, tt.failed)), &out, testLesson, tt.solved)
			if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(out.String(), tt.want) {
				t.Errorf("err = %v, output:\n%s\nwant %q", err, out.String(), tt.want)
			}
			// What it writes for the maintainers' check says the same.
			if step.OK != (tt.want == "") || !step.OK && !strings.Contains(strings.Join(step.Problems, "\n"), tt.want) {
				t.Errorf("step = %+v, want OK %v and a problem that says %q", step, tt.want == "", tt.want)
			}
		})
	}
}

func TestCheckShowsAFailingTestOfNoTask(t *testing.T) {
	var out bytes.Buffer
	resultFile := filepath.Join(t.TempDir(), "r")
	err := check(read(t, goTest([]string{"TestAPI", "TestScaleUp", "TestScaleUpTwice", "TestScaleDown"}, "TestLeftOver")), &out, testLesson, resultFile, "", "", false)
	if !errors.As(err, new(errFailed)) || !strings.Contains(out.String(), "A test of no task fails:") ||
		!strings.Contains(out.String(), "TestLeftOver/three: the ImoocPod should have 3 pods") {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
	wantFailure(t, resultFile, 0, "TestLeftOver/three: the ImoocPod should have 3 pods")
}

func TestCheckWritesWhatFailedApart(t *testing.T) {
	dir := t.TempDir()
	failures := filepath.Join(dir, "failures")
	stream := goTest([]string{"TestAPI"}, "TestScaleUp")
	// A test that passes may print what looks like a symptom: it is not one.
	stream = strings.Replace(stream, `"Output":"=== RUN   TestAPI\n"`, `"Output":"conflict: the object has been modified\n"`, 1)
	err := check(read(t, stream), new(bytes.Buffer), testLesson, "", filepath.Join(dir, "log"), failures, false)
	if !errors.As(err, new(errFailed)) {
		t.Fatalf("err = %v, want the failure reported", err)
	}
	b, _ := os.ReadFile(failures)
	if !strings.Contains(string(b), "the ImoocPod should have 3 pods") || strings.Contains(string(b), "the object has been modified") {
		t.Errorf("failures = %q, want the failing test's output and nothing of the passing one", b)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "log")); !strings.Contains(string(log), "the object has been modified") {
		t.Errorf("log = %q, want everything", log)
	}
}

// A test that never returns: go test's -timeout ends its package with a panic and every
// goroutine's stack, and no event says the test failed. The checklist shows it failing
// under its task, stuck in the lesson's own code.
func TestCheckShowsATestThatNeverReturnsUnderItsTask(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "-failfast", "-timeout=2s", "./...")
	cmd.Dir = filepath.Join("testdata", "hang")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	stream, _ := cmd.Output() // it fails: that is the point
	if !strings.Contains(string(stream), "test timed out after 2s") {
		t.Fatalf("go test did not time out:\n%s", stream)
	}
	var out bytes.Buffer
	resultFile := filepath.Join(t.TempDir(), "r")
	err := check(read(t, string(stream)), &out, testLesson, resultFile, "", "", false)
	failedSaying(t, err, out.String(),
		"done     TODO(1) Validate",
		"failing  TODO(2) Scale up",
		"TestScaleUp/three never returned: stuck in Wait (wait.go:6) (go test stopped it after 2s)",
		"A hint: make hint-1 T=2",
	)
	wantResult(t, resultFile, result.Result{Done: 1, Total: 3, Failed: true, First: 2, Shown: true})
}

// goTestOutput returns go test -json's events for one failed test that printed lines.
func goTestOutput(test string, lines ...string) string {
	ev := events{pkg: controllerPackage}
	for _, name := range []string{"TestAPI", "TestScaleUp"} {
		ev.add("run", name, "")
		ev.add("pass", name, "")
	}
	ev.add("run", test, "")
	for _, l := range lines {
		ev.add("output", test, l+"\n")
	}
	ev.add("fail", test, "")
	ev.packageFailed()
	return ev.String()
}

func TestCheckShowsTheFailedAssertionNotTheManagersLogs(t *testing.T) {
	stream := goTestOutput("TestScaleUpTwice",
		"=== RUN   TestScaleUpTwice",
		"2026-11-24T20:47:52Z\tERROR\tFailed to bring node in line with the pool\t{\"node\": \"n-000\", \"error\": \"patching node n-000: the object has been modified; please apply your changes to the latest version and try again\"}",
		"example.com/workshop/lessons/01-x/internal/controller.(*NodePoolReconciler).reconcileNodes",
		"\t/tmp/lessons/01-x/internal/controller/nodepool_controller.go:164",
		"    nodepool_events_test.go:88: ",
		"        the error should be told once, as a Warning event",
		"        Expected",
		"            <int>: 3",
		"        to equal",
		"            <int>: 1",
		"2026-11-24T20:47:53Z\tERROR\tfailed to get informer from cache\t{\"error\": \"Timeout: failed waiting for *v1.Node Informer to sync\"}",
		"--- FAIL: TestScaleUpTwice (2.92s)",
	)
	dir := t.TempDir()
	var out bytes.Buffer
	_ = check(read(t, stream), &out, testLesson, "", "", filepath.Join(dir, "failures"), false)
	for _, want := range []string{
		"TestScaleUpTwice: the error should be told once, as a Warning event",
		"Expected <int>: 3 to equal <int>: 1",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("checklist lacks %q:\n%s", want, out.String())
		}
	}
	for _, noise := range []string{"ERROR", "Failed to bring node", "informer", "reconcileNodes"} {
		if strings.Contains(out.String(), noise) {
			t.Errorf("checklist shows the logs (%q):\n%s", noise, out.String())
		}
	}
	// A symptom is looked for in the failure shown: the conflict the manager logged is
	// not the test's failure, and names no troubleshooting entry.
	if b, _ := os.ReadFile(filepath.Join(dir, "failures")); strings.Contains(string(b), "the object has been modified") ||
		!strings.Contains(string(b), "the error should be told once") {
		t.Errorf("failures = %q, want the assertion and none of the logs", b)
	}
}

func TestCheckShowsWhatTheFunctionPassedToEventuallySaidFirst(t *testing.T) {
	stream := goTestOutput("TestScaleUpTwice",
		"=== RUN   TestScaleUpTwice",
		"    nodepool_reconcile_test.go:327: ",
		"        Timed out after 10.001s.",
		"        The function passed to Eventually failed at /tmp/x/lessons/01-x/internal/controller/nodepool_reconcile_test.go:319 with:",
		"        Expected success, but got an error:",
		"            <*errors.StatusError | 0xc000a1b2c0>: ",
		"            runtimeclasses.node.k8s.io \"node-pool-idle-13\" not found",
		"            {",
		"                ErrStatus: {",
		"                    TypeMeta: {Kind: \"\", APIVersion: \"\"},",
		"                    Reason: \"NotFound\",",
		"                },",
		"            }",
		"--- FAIL: TestScaleUpTwice (10.02s)",
	)
	out := checklist(t, testLesson, stream)
	lines := strings.Split(out, "\n")
	var row []string
	for i, l := range lines {
		if strings.Contains(l, "failing  TODO(2)") {
			row = lines[i+1 : i+3]
		}
	}
	if len(row) != 2 || !strings.Contains(row[0], `TestScaleUpTwice: Expected success, but got an error: runtimeclasses.node.k8s.io "node-pool-idle-13" not found`) ||
		!strings.Contains(row[1], "Eventually gave up after 10.001s at nodepool_reconcile_test.go:319") ||
		strings.Contains(out, "ErrStatus") {
		t.Errorf("the failure should show the error's text first, then where Eventually gave up, without the object's dump:\n%s", out)
	}
}

func TestCheckShowsWhereATestPanicked(t *testing.T) {
	stream := goTestOutput("TestScaleUpTwice",
		"=== RUN   TestScaleUpTwice",
		"--- FAIL: TestScaleUpTwice (0.00s)",
		"panic: assignment to entry in nil map [recovered, repanicked]",
		"",
		"goroutine 19 [running]:",
		"testing.tRunner.func1.2({0x55a7a0, 0x6cac60})",
		"\t/usr/local/go/src/testing/testing.go:1974 +0x232",
		"panic({0x55a7a0?, 0x6cac60?})",
		"\t/usr/local/go/src/runtime/panic.go:860 +0x13a",
		"example.com/workshop/lessons/01-x/internal/controller.setAnnotation(...)",
		"\t/tmp/x/lessons/01-x/internal/controller/pods.go:5",
		"example.com/workshop/lessons/01-x/internal/controller.TestScaleUpTwice(0x1970746ec248?)",
		"\t/tmp/x/lessons/01-x/internal/controller/pods_test.go:6 +0x54",
		"testing.tRunner(0x1970746ec248, 0x592e48)",
		"\t/usr/local/go/src/testing/testing.go:2036 +0xea",
	)
	out := checklist(t, testLesson, stream)
	if want := "TestScaleUpTwice panicked: assignment to entry in nil map, in setAnnotation (pods.go:5)"; !strings.Contains(out, want) {
		t.Errorf("checklist lacks %q:\n%s", want, out)
	}
}

func TestCheckAlignsTwoDigitTasks(t *testing.T) {
	l := index.Lesson{Number: 10, Folder: "lessons/10-x"}
	for id := 1; id <= 10; id++ {
		l.Todos = append(l.Todos, index.Todo{ID: id, Title: "Task", File: "x.go", Line: id, Tests: []string{"TestAPI"}})
	}
	out := checklist(t, l, goTest([]string{"TestAPI"}, ""))
	col := -1
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, "Task"); i >= 0 {
			if col >= 0 && i != col {
				t.Fatalf("titles do not start in one column:\n%s", out)
			}
			col = i
		}
	}
}

func TestPackageFailureLeavesTheManagersShutdownOut(t *testing.T) {
	got := packageFailure("p", []string{
		"2026-11-24T20:47:53Z\tERROR\tfailed to get informer from cache\t{\"error\": \"Timeout: failed waiting for *v1.Node Informer to sync\"}\n",
		"sigs.k8s.io/controller-runtime/pkg/internal/source.(*Kind[...]).Start.func1.1\n",
		"\t/root/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.25.2/pkg/internal/source/kind.go:76\n",
		"testenv: starting the API server: timeout waiting for process etcd to start\n",
		"FAIL\tp\t3.2s\n",
	})
	if strings.Join(got, "\n") != "p:\ntestenv: starting the API server: timeout waiting for process etcd to start" {
		t.Errorf("packageFailure = %q", got)
	}
}

func TestTimeoutLeavesEveryTestTimeToFailWithAll(t *testing.T) {
	l := testLesson
	l.Timeout = "60s"
	for all, want := range map[bool]string{false: "1m0s\n", true: "2m0s\n"} {
		var out bytes.Buffer
		if err := timeout(&out, l, all); err != nil || out.String() != want {
			t.Errorf("all=%v: %q, %v; want %q", all, out.String(), err, want)
		}
	}
}

// The step says how long its tests ran, and which test of the next task failed first
// and after how long: a failing test that waits its Eventually out makes a slow step.
func TestExpectSaysHowLongTheTestsRan(t *testing.T) {
	for _, tc := range []struct{ name, stream, want string }{
		{
			name: "and which test of the next task failed first",
			stream: `{"Time":"2026-11-24T20:00:00Z","Action":"start","Package":"p"}
{"Time":"2026-11-24T20:00:01Z","Action":"run","Package":"p","Test":"TestAPI"}
{"Time":"2026-11-24T20:00:02Z","Action":"pass","Package":"p","Test":"TestAPI","Elapsed":1}
{"Time":"2026-11-24T20:00:03Z","Action":"run","Package":"p","Test":"TestScaleUpTwice"}
{"Time":"2026-11-24T20:00:12Z","Action":"fail","Package":"p","Test":"TestScaleUpTwice","Elapsed":9.01}
{"Time":"2026-11-24T20:00:12.5Z","Action":"fail","Package":"p"}
`,
			want: "the tests ran for 12.5s\ntask 2 failed first in TestScaleUpTwice, after 9.0s\n",
		},
		// The time leaves out the builds: go test links a package's test binary after
		// another's ran, or while it runs; only the while when none runs is left out.
		{
			name: "leaving out a link while no test runs",
			stream: `{"Time":"2026-11-24T20:00:00Z","Action":"start","Package":"a"}
{"Time":"2026-11-24T20:00:00.5Z","Action":"run","Package":"a","Test":"TestAPI"}
{"Time":"2026-11-24T20:00:01Z","Action":"pass","Package":"a","Test":"TestAPI","Elapsed":0.5}
{"Time":"2026-11-24T20:00:01Z","Action":"pass","Package":"a"}
{"Time":"2026-11-24T20:00:04Z","Action":"start","Package":"b"}
{"Time":"2026-11-24T20:00:05Z","Action":"start","Package":"c"}
{"Time":"2026-11-24T20:00:05Z","Action":"run","Package":"c","Test":"TestScaleUp"}
{"Time":"2026-11-24T20:00:06Z","Action":"fail","Package":"c","Test":"TestScaleUp","Elapsed":1}
{"Time":"2026-11-24T20:00:06.5Z","Action":"fail","Package":"c"}
{"Time":"2026-11-24T20:00:07Z","Action":"pass","Package":"b"}
`,
			want: "the tests ran for 4.0s\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			step, err := expect(read(t, tc.stream), &out, testLesson, 1)
			if err != nil || !strings.Contains(out.String(), tc.want) {
				t.Errorf("err = %v, output:\n%s", err, out.String())
			}
			// The figures it writes are the ones it prints.
			said := fmt.Sprintf("the tests ran for %.1fs\n", step.TestSeconds)
			if step.FirstFailure != "" {
				said += fmt.Sprintf("task 2 failed first in %s, after %.1fs\n", step.FirstFailure, step.FirstSeconds)
			}
			if !strings.Contains(out.String(), said) || !strings.Contains(said, tc.want) {
				t.Errorf("step = %+v, which says %q; printed:\n%s", step, said, out.String())
			}
		})
	}
}

// Once the first task not done is failing and every task before it is done, the other
// packages' tests can only decide later tasks: go test is stopped rather than waited for.
func TestCheckStopsGoTestOnceTheFirstFailureIsSettled(t *testing.T) {
	inGoTestModule(t, "stop")
	start := time.Now()
	var out bytes.Buffer
	err := checkCommand([]string{"go", "test", "-json", "-count=1", "-failfast", "-p=2"}, &out, testLesson, 0, "", "", "", false, true, nil)
	took := time.Since(start)
	failedSaying(t, err, out.String(),
		"failing  TODO(1) Validate",
		"TestAPI: the API should validate the replica count",
		"not run  TODO(3) Scale down",
		"stopped at this first failure",
	)
	if took > 20*time.Second {
		t.Errorf("check took %s: it waited for TestScaleDown's 30s sleep", took)
	}
}

// The maintainers' step (expect) stops where a learner's check does: what it proves is
// what the learner sees, and a later package's slow tests cost nothing.
func TestExpectStopsGoTestOnceTheFirstFailureIsSettled(t *testing.T) {
	inGoTestModule(t, "stop")
	expectWithoutTheSlowTest(t, 0, "exactly those done, task 1 failing")
}

// expectWithoutTheSlowTest runs expect, with tasks 1 to solved solved, on the module
// inGoTestModule chose, whose slow test sleeps 30s: it must say want, and end well before.
// It returns what expect said.
func expectWithoutTheSlowTest(t *testing.T, solved int, want string) string {
	t.Helper()
	start := time.Now()
	var out bytes.Buffer
	err := expectCommand([]string{"go", "test", "-json", "-count=1", "-failfast", "-p=2"}, &out, testLesson, solved, "", true, nil)
	if err != nil || !strings.Contains(out.String(), want) {
		t.Errorf("expect = %v, want %q:\n%s", err, want, out.String())
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("expect took %s: it waited for the slow test's 30s sleep", took)
	}
	return out.String()
}

// A subtest's panic is printed after its parent's --- FAIL line, and go test gives it to
// the parent.
func TestCheckShowsWhereASubtestPanicked(t *testing.T) {
	ev := events{pkg: controllerPackage}
	for _, name := range []string{"TestAPI", "TestScaleUp"} {
		ev.add("pass", name, "")
	}
	ev.add("output", "TestScaleUpTwice/one", "=== RUN   TestScaleUpTwice/one\n")
	ev.add("output", "TestScaleUpTwice/one", "--- FAIL: TestScaleUpTwice/one (0.00s)\n")
	ev.add("fail", "TestScaleUpTwice/one", "")
	for _, l := range []string{
		"--- FAIL: TestScaleUpTwice (0.00s)",
		"panic: assignment to entry in nil map [recovered, repanicked]",
		"",
		"goroutine 172 [running]:",
		"panic({0x1a570a0?, 0x2f6aad0?})",
		"\t/usr/local/go/src/runtime/panic.go:860 +0x13a",
		controllerPackage + ".Inject(0x21605614c008, {0x21605614a000, 0x1, 0x16?})",
		"\t/tmp/x/lessons/01-x/internal/controller/inject.go:43 +0x2a7",
		controllerPackage + ".TestScaleUpTwice.func3(0x216056148248?)",
		"\t/tmp/x/lessons/01-x/internal/controller/inject_test.go:119 +0x1d0",
	} {
		ev.add("output", "TestScaleUpTwice", l+"\n")
	}
	ev.add("fail", "TestScaleUpTwice", "")
	ev.packageFailed()
	out := checklist(t, testLesson, ev.String())
	if want := "TestScaleUpTwice/one panicked: assignment to entry in nil map, in Inject (inject.go:43)"; !strings.Contains(out, want) {
		t.Errorf("checklist lacks %q:\n%s", want, out)
	}
}

// The first failure is settled once the tests of the tasks before it have passed, not
// once their packages have ended: a package's slow tests of no task cost nothing.
func TestExpectStopsOnceTheEarlierTasksTestsPassedNotTheirPackages(t *testing.T) {
	inGoTestModule(t, "settle")
	out := expectWithoutTheSlowTest(t, 1, "exactly those done, task 2 failing")
	var ran float64
	if _, err := fmt.Sscanf(out, "the tests ran for %fs", &ran); err != nil || ran < 3 || ran > 20 {
		t.Errorf("want the tests' time up to TestAPI's end, 3s and more:\n%s", out)
	}
}

// Once every task is done, the lesson's other tests run: a learner who broke an earlier
// lesson's behaviour sees it, after the checklist of the tasks.
func TestCheckRunsTheOtherTestsOnceEveryTaskIsDone(t *testing.T) {
	inGoTestModule(t, "others")
	var out bytes.Buffer
	err := checkCommand([]string{"go", "test", "-json", "-count=1", "-failfast"}, &out, testLesson, 0, "", "", "", false, true, nil)
	failedSaying(t, err, out.String(),
		"now the solution's other tests (the earlier lessons' behaviour) in ./earlier",
		"3 of 3 tasks done",
		"A test of no task fails:",
		"TestAnEarlierLessonsBehaviour: the pods should be owned",
	)
}

// While a task is not done, only the tasks' tests run: the others wait for the last task.
func TestCheckRunsOnlyTheTasksTestsWhileATaskFails(t *testing.T) {
	inGoTestModule(t, "others")
	t.Setenv("TODOS_TEST_TASK_FAILS", "1")
	var out bytes.Buffer
	err := checkCommand([]string{"go", "test", "-json", "-count=1", "-failfast"}, &out, testLesson, 0, "", "", "", false, true, nil)
	failedSaying(t, err, out.String(), "TestAPI: the API should validate the replica count")
	for _, unwanted := range []string{"other tests", "TestAnEarlierLessonsBehaviour"} {
		if strings.Contains(out.String(), unwanted) {
			t.Errorf("checklist says %q, though task 1 fails:\n%s", unwanted, out.String())
		}
	}
}

// failedSaying fails the test unless check reported a failure (err) and its checklist
// (out) says each of wants.
func failedSaying(t *testing.T, err error, out string, wants ...string) {
	t.Helper()
	if !errors.As(err, new(errFailed)) {
		t.Errorf("err = %v, want the failure reported", err)
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("checklist lacks %q:\n%s", want, out)
		}
	}
}

// inGoTestModule makes the test run in testdata/name, a module of its own, where go test
// runs and is stopped; it skips the test where go test cannot be stopped, or with -short.
func inGoTestModule(t *testing.T, name string) {
	t.Helper()
	if testing.Short() || !stopsEarly {
		t.Skip("runs go test, where it can be stopped")
	}
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("TMPDIR", t.TempDir()) // the stopped go test leaves its build folder there
	t.Chdir(filepath.Join("testdata", name))
}

// checklist returns what check prints for lesson l of what go test said in stream.
func checklist(t *testing.T, l index.Lesson, stream string) string {
	t.Helper()
	var out bytes.Buffer
	_ = check(read(t, stream), &out, l, "", "", "", false)
	return out.String()
}

// wantResult fails the test unless check wrote want to the result file.
// wantResult checks the result check wrote, but for the failure it showed (wantFailure).
func wantResult(t *testing.T, file string, want result.Result) {
	t.Helper()
	got, err := result.Read(file)
	got.Failure = nil
	if err != nil || got != want {
		t.Errorf("result = %+v, %v; want %+v", got, err, want)
	}
}

// wantFailure checks that the result check wrote names the failure it showed: under
// task's row (0: of a test of no task), with a line that says says.
func wantFailure(t *testing.T, file string, task int, says string) {
	t.Helper()
	got, err := result.Read(file)
	if err != nil || got.Failure == nil || got.Failure.Task != task || got.Failure.Untied != (task == 0) ||
		!strings.Contains(strings.Join(got.Failure.Lines, "\n"), says) {
		t.Errorf("result = %+v, %v; want the failure under task %d's row, saying %q", got.Failure, err, task, says)
	}
}
