package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// The capstone (a lesson whose folder starts empty, index.Lesson.StartsEmpty) is graded
// from outside: its learner scaffolds a module with kubebuilder and writes an operator
// from the page's spec, and make check-N runs the grading suite (scripts/tools/capstone)
// against it: black-box tests, one per requirement, that import nothing of the module.
// Each task of the lesson is one requirement and names its test.

// The spec's project: what the learner's PROJECT file must record.
const (
	capstoneDomain  = "workshop.dev"
	capstoneGroup   = "copies"
	capstoneVersion = "v1"
	capstoneKind    = "ConfigMapCopy"
	capstoneLayout  = "go.kubebuilder.io/v4"
)

// capstoneCheck is workshop check N for a lesson that starts empty. It says first, and
// plainly, when the learner's PROJECT is not the spec's; then it generates the module's
// CRDs and webhook configurations, builds its manager and runs the suite, and prints one
// row per requirement, with the time each step took.
func capstoneCheck(root string, l index.Lesson) error {
	dir := filepath.Join(root, l.Folder)
	if err := checkCapstoneProject(dir, l.Number); err != nil {
		return err
	}
	cache := filepath.Join(root, ".cache", "check")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return err
	}
	name := filepath.Base(l.Folder)
	logFile := filepath.Join(cache, name+".log")
	log, err := os.Create(logFile)
	if err != nil {
		return err
	}
	defer log.Close()
	resultFile := result.Path(root, name)
	if err := os.Remove(resultFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	mark := processMark("check")
	g := grading{root: root, lesson: l, log: log, mark: mark, progress: say,
		manager: filepath.Join(cache, name+".manager"), managerLog: filepath.Join(cache, name+".manager.log"),
		suite: newGradingSuite(root)}
	res, err := g.grade(dir, os.Stdout)
	if err == nil {
		err = gradeCapstoneTests(root, l, dir, gradingEnv(root, mark), &res, os.Stdout)
	}
	stopSurvivors(mark)
	if err != nil {
		return fmt.Errorf("%w (full output: %s)", err, rel(root, logFile))
	}
	if err := result.Write(resultFile, res); err != nil {
		return err
	}
	if res.Complete() {
		say("All %d tasks of docs/lesson-%02d.md are done. Deploy it with the chart: docs/lesson-%02d.md, \"Ship it\".", res.Total, l.Number, l.Number)
		return nil
	}
	warn("%d of %d tasks done; each failing row says which requirement broke and how, or what your test misses. (Full output: %s; your manager's log: %s)",
		res.Done, res.Total, rel(root, logFile), rel(root, filepath.Join(cache, name+".manager.log")))
	return errFailed{}
}

// A kubebuilder PROJECT file, as much of it as the spec fixes.
type kubebuilderProject struct {
	Domain     string   `yaml:"domain"`
	Layout     []string `yaml:"layout"`
	MultiGroup bool     `yaml:"multigroup"`
	Resources  []struct {
		API *struct {
			Namespaced bool `yaml:"namespaced"`
		} `yaml:"api"`
		Group    string `yaml:"group"`
		Domain   string `yaml:"domain"`
		Version  string `yaml:"version"`
		Kind     string `yaml:"kind"`
		Webhooks *struct {
			Defaulting bool `yaml:"defaulting"`
			Validation bool `yaml:"validation"`
		} `yaml:"webhooks"`
	} `yaml:"resources"`
}

// checkCapstoneProject reads dir's PROJECT and names each way it departs from the spec:
// the suite would only fail on every row for a reason no row could say.
func checkCapstoneProject(dir string, n int) error {
	src, err := os.ReadFile(filepath.Join(dir, "PROJECT"))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s has no PROJECT file: start with `kubebuilder init` there, as docs/lesson-%02d.md says in \"From an empty folder\"", dir, n)
	}
	if err != nil {
		return err
	}
	var p kubebuilderProject
	if err := yaml.Unmarshal(src, &p); err != nil {
		return fmt.Errorf("%s/PROJECT: %w", dir, err)
	}
	var problems []string
	if !slices.Contains(p.Layout, capstoneLayout) {
		problems = append(problems, fmt.Sprintf("layout is %v, the spec's is %s (kubebuilder init's default)", p.Layout, capstoneLayout))
	}
	if p.MultiGroup {
		problems = append(problems, "multigroup is true: the spec's layout has one group, api/v1 (do not run kubebuilder edit --multigroup)")
	}
	if p.Domain != capstoneDomain {
		problems = append(problems, fmt.Sprintf("domain is %q, the spec's is %q (kubebuilder init --domain %s)", p.Domain, capstoneDomain, capstoneDomain))
	}
	found := false
	for _, r := range p.Resources {
		if r.Kind != capstoneKind || r.Group != capstoneGroup || r.Version != capstoneVersion {
			problems = append(problems, fmt.Sprintf("a resource %s/%s of group %s: the spec has %s/%s of group %s and no other", r.Kind, r.Version, r.Group, capstoneKind, capstoneVersion, capstoneGroup))
			continue
		}
		found = true
		if r.API == nil {
			problems = append(problems, "ConfigMapCopy has no API: kubebuilder create api --resource")
		} else if r.API.Namespaced {
			problems = append(problems, "ConfigMapCopy is namespaced: the spec's is cluster-scoped (kubebuilder create api --namespaced=false)")
		}
		if r.Webhooks == nil || !r.Webhooks.Defaulting || !r.Webhooks.Validation {
			problems = append(problems, "ConfigMapCopy lacks its defaulting or validating webhook: kubebuilder create webhook --defaulting --programmatic-validation")
		}
	}
	if !found {
		problems = append(problems, fmt.Sprintf("no resource %s/%s of group %s: kubebuilder create api --group %s --version %s --kind %s", capstoneKind, capstoneVersion, capstoneGroup, capstoneGroup, capstoneVersion, capstoneKind))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s/PROJECT is not the spec's project, so the checklist cannot grade it:\n  - %s\nSee docs/lesson-%02d.md, \"From an empty folder\"", dir, strings.Join(problems, "\n  - "), n)
	}
	return nil
}

// A grading is one run of the grading suite against a module.
type grading struct {
	root     string
	lesson   index.Lesson
	log      io.Writer // the output of each step
	mark     string    // the environment marker of every process it starts
	progress func(format string, args ...any)
	// manager is where the module's manager is built, managerLog where its output goes.
	manager, managerLog string
	suite               *gradingSuite
}

// A gradingSuite is the capstone's grading suite linked into a test binary. The suite is
// the same for every module it grades (CAPSTONE_MODULE names the module): it is built
// once for all the gradings of a process, and go test -c links it again only when the
// suite changed, so that a learner's next check starts at once.
type gradingSuite struct {
	root, binary string
	once         sync.Once
	err          error
}

// newGradingSuite is the grading suite of the checkout root, in .cache/check.
func newGradingSuite(root string) *gradingSuite {
	return &gradingSuite{root: root, binary: filepath.Join(root, ".cache", "check", "capstone-suite.test")}
}

// build links the suite's test binary if it is not up to date, once per process.
func (s *gradingSuite) build(env []string) error {
	s.once.Do(func() {
		if s.err = os.MkdirAll(filepath.Dir(s.binary), 0o755); s.err != nil {
			return
		}
		cmd := exec.Command("go", "test", "-c", "-tags", "capstone", "-ldflags=-w", "-o", s.binary, "./capstone")
		cmd.Dir = filepath.Join(s.root, "scripts", "tools")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			s.err = fmt.Errorf("go test -c ./capstone (the grading suite) failed (%v):\n%s", err, strings.TrimSpace(string(out)))
		}
	})
	return s.err
}

// grade generates, builds and grades the module dir against the lesson's suite, prints
// the checklist to out and returns the result. An error means there is no checklist:
// the module does not generate or build (the log says why).
func (g grading) grade(dir string, out io.Writer) (result.Result, error) {
	root, l, log, mark, say, manager, managerLog := g.root, g.lesson, g.log, g.mark, g.progress, g.manager, g.managerLog
	run := func(what, dir, name string, args ...string) (time.Duration, error) {
		start := time.Now()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", mark)
		var buf strings.Builder
		cmd.Stdout, cmd.Stderr = io.MultiWriter(log, &buf), io.MultiWriter(log, &buf)
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("%s failed (%v):\n%s", what, err, strings.TrimSpace(buf.String()))
		}
		return time.Since(start).Round(100 * time.Millisecond), nil
	}
	bin := filepath.Join(root, ".cache", "bin", "current")
	controllerGen := filepath.Join(bin, "controller-gen")
	say("Generating the CRDs, RBAC and webhook configurations of %s (controller-gen, as its make manifests does)", rel(root, dir))
	genTime, err := run("controller-gen", dir, controllerGen, "rbac:roleName=manager-role", "crd", "webhook", "paths=./...", "output:crd:artifacts:config=config/crd/bases")
	if err != nil {
		return result.Result{}, err
	}
	header := "object"
	if _, err := os.Stat(filepath.Join(dir, "hack", "boilerplate.go.txt")); err == nil {
		header = `object:headerFile=hack/boilerplate.go.txt`
	}
	objTime, err := run("controller-gen object", dir, controllerGen, header, "paths=./...")
	if err != nil {
		return result.Result{}, err
	}
	say("Building its manager (go build ./cmd)")
	buildTime, err := run("go build ./cmd", dir, "go", "build", "-o", manager, "./cmd")
	if err != nil {
		return result.Result{}, err
	}
	timeout, err := l.TestTimeout(true)
	if err != nil {
		return result.Result{}, err
	}
	say("Running the grading suite: a control plane with your CRDs and webhooks, your manager against it, one test per requirement")
	start := time.Now()
	if err := g.suite.build(append(os.Environ(), "GOWORK=off", mark)); err != nil {
		return result.Result{}, err
	}
	// test2json turns the suite's output into go test -json's events, as go test does.
	cmd := exec.Command("go", "tool", "test2json", "-t", "-p", "capstone", g.suite.binary,
		"-test.v=test2json", "-test.timeout="+timeout.String())
	cmd.Dir = filepath.Join(root, "scripts", "tools", "capstone")
	cmd.Env = append(os.Environ(), "GOWORK=off", mark, "CAPSTONE_MODULE="+dir, "CAPSTONE_MANAGER="+manager,
		"CAPSTONE_LOG="+managerLog, "KUBEBUILDER_ASSETS="+bin)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return result.Result{}, err
	}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return result.Result{}, err
	}
	tests := readTestEvents(io.TeeReader(pipe, log))
	runErr := cmd.Wait()
	suiteTime := time.Since(start).Round(100 * time.Millisecond)
	res := capstoneResult(l, tests)
	if len(tests) == 0 && runErr != nil {
		return result.Result{}, fmt.Errorf("the grading suite did not run: %v\n%s", runErr, tail(managerLog, 10))
	}
	printCapstoneRows(out, l, tests)
	fmt.Fprintf(out, "\nTimes: controller-gen %s + %s, go build %s, grading suite %s (control plane, manager, %d tests)\n",
		genTime, objTime, buildTime, suiteTime, len(requirements(l)))
	return res, nil
}

// A testOutcome is what go test said of one test.
type testOutcome struct {
	action string // pass, fail, skip, or "" when it never ended
	lines  []string
}

// readTestEvents reads go test -json's events and returns each top-level test's outcome.
func readTestEvents(r io.Reader) map[string]*testOutcome {
	tests := map[string]*testOutcome{}
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	for lines.Scan() {
		var e struct {
			Action, Test, Output string
		}
		if json.Unmarshal(lines.Bytes(), &e) != nil || e.Test == "" || strings.Contains(e.Test, "/") {
			continue
		}
		t := tests[e.Test]
		if t == nil {
			t = &testOutcome{}
			tests[e.Test] = t
		}
		switch e.Action {
		case "pass", "fail", "skip":
			t.action = e.Action
		case "output":
			text := strings.TrimRight(e.Output, "\n")
			if strings.HasPrefix(strings.TrimSpace(text), "=== ") || strings.HasPrefix(strings.TrimSpace(text), "--- ") {
				continue
			}
			t.lines = append(t.lines, text)
		}
	}
	return tests
}

// requirements are the lesson's tasks the suite grades: all but its test tasks.
func requirements(l index.Lesson) []index.Todo {
	var out []index.Todo
	for _, t := range l.Todos {
		if !t.IsTest() {
			out = append(out, t)
		}
	}
	return out
}

// capstoneResult is the lesson's result from the tests' outcomes: a requirement is met
// when its test passed; the failure shown is the first unmet requirement's.
func capstoneResult(l index.Lesson, tests map[string]*testOutcome) result.Result {
	res := result.Result{Total: len(requirements(l))}
	for _, task := range requirements(l) {
		t := tests[firstTest(task)]
		if t != nil && t.action == "pass" {
			res.Done++
			continue
		}
		res.Failed = true
		if res.Failure == nil {
			res.First = task.ID
			res.Shown = t != nil
			res.Failure = &result.Failure{Task: task.ID, Lines: capstoneFailureLines(t)}
		}
	}
	return res
}

func firstTest(task index.Todo) string {
	if len(task.Tests) == 0 {
		return ""
	}
	return task.Tests[0]
}

// capstoneFailureLines are what a failed test said, without go test's file:line prefixes'
// indentation noise.
func capstoneFailureLines(t *testOutcome) []string {
	if t == nil {
		return []string{"did not run: the suite ended before it (see the full output)"}
	}
	if t.action == "" {
		return append([]string{"never ended: the suite's timeout stopped it"}, t.lines...)
	}
	var out []string
	for _, line := range t.lines {
		if s := testLinePrefix.ReplaceAllString(strings.TrimSpace(line), ""); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// testLinePrefix is the file:line go test puts before a test's message.
var testLinePrefix = regexp.MustCompile(`^\w+_test\.go:\d+: `)

// printCapstoneRows prints the checklist: one row per requirement, its failure below it.
func printCapstoneRows(out io.Writer, l index.Lesson, tests map[string]*testOutcome) {
	fmt.Fprintf(out, "\nLesson %d: %s, requirement by requirement\n", l.Number, l.Title)
	for _, task := range requirements(l) {
		t := tests[firstTest(task)]
		mark := "\033[32m✓\033[0m"
		if t == nil || t.action != "pass" {
			mark = "\033[31m✗\033[0m"
		}
		fmt.Fprintf(out, "  %s R%d %s\n", mark, task.ID, task.Title)
		if t == nil || t.action != "pass" {
			lines := capstoneFailureLines(t)
			if len(lines) > 6 {
				lines = append(lines[:6], "...")
			}
			for _, line := range lines {
				fmt.Fprintf(out, "        %s\n", line)
			}
		}
	}
}

// capstoneMistake makes mistake m in a scratch copy of the solution and grades it as
// make check-N does: the mistake's requirement must be the first failing row.
func (c *checks) capstoneMistake(results string, l index.Lesson, m mistakeRow) (err error) {
	log, err := os.Create(m.log(results))
	if err != nil {
		return err
	}
	defer log.Close()
	dir, top, err := c.scratchStage("solutions", m.folder, log, "-mistake", m.name)
	if top != "" {
		defer removeTemp(top, &err)
	}
	if err != nil {
		return err
	}
	g := grading{root: c.root, lesson: l, log: log, mark: c.mark, progress: logTo(log),
		manager: filepath.Join(top, "manager"), managerLog: filepath.Join(results, m.folder+"-"+m.name+".manager.log"),
		suite: c.suite}
	res, err := g.grade(dir, log)
	if err != nil {
		return err
	}
	return result.Write(m.result(results), res)
}

// logTo is a progress function that writes to log.
func logTo(log io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) { fmt.Fprintf(log, "==> "+format+"\n", args...) }
}

// withoutCapstones drops the mistakes of the lessons that start empty.
func withoutCapstones(mistakes []mistakeRow, indexed []index.Lesson) []mistakeRow {
	var out []mistakeRow
	for _, m := range mistakes {
		if !lessonOf(indexed, m.folder).StartsEmpty {
			out = append(out, m)
		}
	}
	return out
}

// scaffoldCommands are the kubebuilder commands docs/lesson-15.md gives, in its order:
// workshop capstone-scaffold runs them, and a test keeps the page saying them.
var scaffoldCommands = [][]string{
	{"init", "--domain", capstoneDomain, "--repo", "example.com/capstone"},
	{"create", "api", "--group", capstoneGroup, "--version", capstoneVersion, "--kind", capstoneKind, "--namespaced=false", "--resource", "--controller"},
	{"create", "webhook", "--group", capstoneGroup, "--version", capstoneVersion, "--kind", capstoneKind, "--defaulting", "--programmatic-validation"},
}

// workshop capstone-scaffold N runs the page's kubebuilder commands in an empty folder,
// with the pinned kubebuilder and no network but the Go module proxy, and grades the
// scaffold, which has no logic: every row must fail, and say which requirement it is.
func capstoneScaffoldCommand(root string, args []string) (err error) {
	if len(args) != 1 {
		return errors.New("usage: workshop capstone-scaffold N")
	}
	l, err := readLesson(root, args[0])
	if err != nil {
		return err
	}
	if !l.StartsEmpty {
		return fmt.Errorf("lesson %d does not start from an empty folder", l.Number)
	}
	top, err := os.MkdirTemp("", "workshop-capstone-")
	if err != nil {
		return err
	}
	defer removeTemp(top, &err)
	dir := filepath.Join(top, filepath.Base(l.Folder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mark := processMark("capstone-scaffold")
	defer stopSurvivors(mark)
	kubebuilder := filepath.Join(root, ".cache", "bin", "current", "kubebuilder")
	start := time.Now()
	for _, args := range scaffoldCommands {
		cmd := exec.Command(kubebuilder, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", mark)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("kubebuilder %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	say("Scaffolded with kubebuilder as docs/lesson-%02d.md says, in %s", l.Number, time.Since(start).Round(100*time.Millisecond))
	logFile := filepath.Join(top, "grading.log")
	log, err := os.Create(logFile)
	if err != nil {
		return err
	}
	defer log.Close()
	g := grading{root: root, lesson: l, log: log, mark: mark, progress: say,
		manager: filepath.Join(top, "manager"), managerLog: filepath.Join(top, "manager.log"), suite: newGradingSuite(root)}
	res, err := g.grade(dir, os.Stdout)
	if err != nil {
		return err
	}
	if problems := unnamedFailures(l, res, logFile); len(problems) > 0 {
		return fmt.Errorf("on a scaffold without logic:\n  %s", strings.Join(problems, "\n  "))
	}
	say("Every one of the %d rows fails on a scaffold without logic, and names its requirement", res.Total)
	return nil
}

// unnamedFailures says which rows of a grading of a scaffold without logic pass, or fail
// without naming their requirement (Rk:), reading the suite's events from the log file.
func unnamedFailures(l index.Lesson, res result.Result, logFile string) []string {
	f, err := os.Open(logFile)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	tests := readTestEvents(f)
	var problems []string
	for _, task := range requirements(l) {
		t := tests[firstTest(task)]
		switch {
		case t == nil || t.action == "":
			problems = append(problems, fmt.Sprintf("R%d (%s) did not run to its end", task.ID, firstTest(task)))
		case t.action != "fail":
			problems = append(problems, fmt.Sprintf("R%d (%s) passes", task.ID, firstTest(task)))
		case !strings.Contains(strings.Join(t.lines, "\n"), fmt.Sprintf("R%d:", task.ID)):
			problems = append(problems, fmt.Sprintf("R%d (%s) fails without naming R%d: %s", task.ID, firstTest(task), task.ID, strings.Join(capstoneFailureLines(t), " / ")))
		}
	}
	if res.Done != 0 {
		problems = append(problems, fmt.Sprintf("%d rows pass", res.Done))
	}
	return problems
}

// A capstone's test task is graded as any test task (testtask.go), its test taken from
// the learner's module: kubebuilder init named that module, so its imports of itself
// are read under the solution's module path, in whose module the test is built.

// capstoneTestSource reads test task t's file in the learner's module dir, its imports of
// the module moved to module; found is false when the learner has not written it yet.
func capstoneTestSource(dir string, t index.Todo, module string) (src string, found bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(t.File)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	mine, err := modulePath(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", false, err
	}
	return strings.ReplaceAll(string(b), `"`+mine+`/`, `"`+module+`/`), true, nil
}

// modulePath is the module path the go.mod file declares.
func modulePath(goMod string) (string, error) {
	src, err := os.ReadFile(goMod)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(src)) {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(name), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", goMod)
}

// missingTestGrade is the grade of test task t while its file is not there: what to
// write, and where.
func missingTestGrade(l index.Lesson, t index.Todo) result.Grade {
	return result.Grade{Task: t.ID, Total: len(t.Bugs), Broken: []string{
		fmt.Sprintf("no test yet: write %s in %s/%s, a plain Go test (see docs/lesson-%02d.md)", strings.Join(t.Tests, ", "), l.Folder, t.File, l.Number),
	}}
}

// gradeCapstoneTests grades the test tasks of lesson l as the learner's module dir has
// them, prints their rows to out, and counts them in res, after the requirements.
func gradeCapstoneTests(root string, l index.Lesson, dir string, env []string, res *result.Result, out io.Writer) (err error) {
	tasks := testTasks(l)
	if len(tasks) == 0 {
		return nil
	}
	lessongen, err := buildTool(root, "lessongen")
	if err != nil {
		return err
	}
	timeout, err := l.TestTimeout(false)
	if err != nil {
		return err
	}
	g := grader{root: root, lessongen: lessongen, lesson: l, timeout: timeout, env: env}
	mutants, err := g.mutants()
	if err != nil {
		return err
	}
	solution := filepath.Join(root, "solutions", filepath.Base(l.Folder))
	module, err := modulePath(filepath.Join(solution, "go.mod"))
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "workshop-capstone-test-")
	if err != nil {
		return err
	}
	defer removeTemp(tmp, &err)
	fmt.Fprintf(out, "\nLesson %d: your tests, graded by the bugs they must catch\n", l.Number)
	for _, t := range tasks {
		var mine []mutant
		for _, m := range mutants {
			if m.Task == t.ID {
				mine = append(mine, m)
			}
		}
		src, found, err := capstoneTestSource(dir, t, module)
		if err != nil {
			return err
		}
		grade, timed := missingTestGrade(l, t), ""
		if found {
			file := filepath.Join(tmp, filepath.Base(t.File))
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				return err
			}
			var timing gradeTiming
			grade, timing, err = g.grade(t, file, nil, mine)
			if err != nil {
				return fmt.Errorf("grading task %d: %w", t.ID, err)
			}
			timed = fmt.Sprintf("        (graded in %s)\n", timing)
		}
		mark := "\033[32m✓\033[0m"
		if !grade.Done() {
			mark = "\033[31m✗\033[0m"
		}
		fmt.Fprintf(out, "  %s %d %s (%s)\n", mark, t.ID, t.Title, t.File)
		lines := grade.Lines()
		if grade.Done() {
			lines = []string{fmt.Sprintf("your test catches %d of %d known bugs", grade.Caught, grade.Total)}
		}
		for _, line := range lines {
			fmt.Fprintf(out, "        %s\n", line)
		}
		fmt.Fprint(out, timed)
		res.Total++
		if grade.Done() {
			res.Done++
			continue
		}
		res.Failed = true
		if res.Failure == nil {
			res.First, res.Shown = t.ID, true
			res.Failure = &result.Failure{Task: t.ID, Lines: grade.Lines()}
		}
	}
	return nil
}
