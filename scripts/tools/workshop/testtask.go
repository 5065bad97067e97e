package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// A test task (its TODO stands in a _test.go file) asks the learner for a test, and its
// test is graded by mutation: compiled with the lesson's solution, where it must pass,
// and with each of the task's mutants, the solution with one known bug made, where it
// must fail. The learner's file and the bug's files stand in for the solution's through
// go's -overlay, so nothing is copied and the solution stays as it is; the test
// binaries are built side by side, then run: the correct one first, then the mutants.

// mutant is one bug of a test task, as lessongen mutants gives it.
type mutant struct {
	Task  int               `json:"task"`
	Name  string            `json:"name"`
	Bug   string            `json:"bug"`
	Files map[string]string `json:"files"`
}

// gradeTiming is how long a grading took, and where: building the test binaries,
// running the test on correct code, and on the mutants.
type gradeTiming struct {
	build, correct, mutants time.Duration
	kept                    bool // read from the run's memo (gradeMemoEnv)
}

func (t gradeTiming) String() string {
	if t.kept {
		return "no time: graded earlier in this run"
	}
	total := t.build + t.correct + t.mutants
	return fmt.Sprintf("%.1fs: build %.1fs, correct code %.1fs, bugs %.1fs",
		total.Seconds(), t.build.Seconds(), t.correct.Seconds(), t.mutants.Seconds())
}

// grader grades the test tasks of one lesson of the checkout root.
type grader struct {
	root      string
	lessongen string
	lesson    index.Lesson
	timeout   time.Duration
	env       []string // for go test -c and the test binaries
	// buildFlags go to go test -c before the grader's own: workshop testtasks passes
	// its checks' (-trimpath and the build at the lowest priority).
	buildFlags []string
}

// testTasks returns the lesson's test tasks.
func testTasks(l index.Lesson) []index.Todo {
	var out []index.Todo
	for _, t := range l.Todos {
		if t.IsTest() {
			out = append(out, t)
		}
	}
	return out
}

// gradeTestTasks grades the test of each test task of lesson l as the module dir has it
// (the learner's lesson), writes the grades to the file gradesFile for todos, and says
// how long each took. A lesson without test tasks writes no file and returns "".
func gradeTestTasks(root string, l index.Lesson, dir, gradesFile string, env []string) (string, error) {
	tasks := testTasks(l)
	if len(tasks) == 0 {
		return "", nil
	}
	lessongen, err := buildTool(root, "lessongen")
	if err != nil {
		return "", err
	}
	// A grade stands while the tests it graded and the bugs stay as they were: a check
	// after work on the lesson's other tasks does not grade the same test again.
	key, err := gradingKey(root, lessongen, l, tasks, dir)
	if err != nil {
		return "", err
	}
	if last, err := os.ReadFile(gradesFile + ".key"); err == nil && string(last) == key {
		if _, err := result.ReadGrades(gradesFile); err == nil {
			say("Your tests of the test tasks are as at their last grading: their grades stand")
			return gradesFile, nil
		}
	}
	if err := gradeTasks(root, lessongen, l, tasks, dir, gradesFile, env, say); err != nil {
		return "", err
	}
	return gradesFile, os.WriteFile(gradesFile+".key", []byte(key), 0o644)
}

// gradingKey sums what a grading of tasks depends on: the learner's test files, the
// solution's files of their packages, and the bugs.
func gradingKey(root, lessongen string, l index.Lesson, tasks []index.Todo, dir string) (string, error) {
	sum := sha256.New()
	g := grader{root: root, lessongen: lessongen, lesson: l}
	mutants, err := g.mutants()
	if err != nil {
		return "", err
	}
	if err := json.NewEncoder(sum).Encode(mutants); err != nil {
		return "", err
	}
	solution := filepath.Join(root, "solutions", path.Base(l.Folder))
	for _, t := range tasks {
		files, err := filepath.Glob(filepath.Join(solution, filepath.FromSlash(path.Dir(t.File)), "*.go"))
		if err != nil {
			return "", err
		}
		for _, file := range append([]string{filepath.Join(dir, filepath.FromSlash(t.File))}, files...) {
			b, err := os.ReadFile(file)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(sum, "%s %d\n", file, len(b))
			sum.Write(b)
		}
	}
	return hex.EncodeToString(sum.Sum(nil)), nil
}

// gradeTasks grades tasks, test tasks of lesson l, as the module dir has them, writes
// the grades to gradesFile and tells report how long each took.
func gradeTasks(root, lessongen string, l index.Lesson, tasks []index.Todo, dir, gradesFile string, env []string, report func(string, ...any)) error {
	timeout, err := l.TestTimeout(false)
	if err != nil {
		return err
	}
	g := grader{root: root, lessongen: lessongen, lesson: l, timeout: timeout, env: env}
	mutants, err := g.mutants()
	if err != nil {
		return err
	}
	var grades []result.Grade
	for _, t := range tasks {
		var mine []mutant
		for _, m := range mutants {
			if m.Task == t.ID {
				mine = append(mine, m)
			}
		}
		report("Grading your test of TODO(%d) (%s) against the solution and %d known bugs", t.ID, strings.Join(t.Tests, ", "), len(mine))
		grade, timing, err := g.grade(t, filepath.Join(dir, filepath.FromSlash(t.File)), nil, mine)
		if err != nil {
			return fmt.Errorf("grading TODO(%d): %w", t.ID, err)
		}
		report("Graded TODO(%d) in %s", t.ID, timing)
		grades = append(grades, grade)
	}
	return result.WriteGrades(gradesFile, grades)
}

// mutants returns the lesson's mutants, from lessongen.
func (g grader) mutants() ([]mutant, error) {
	cmd := exec.Command(g.lessongen, "-root", g.root, "mutants", fmt.Sprint(g.lesson.Number))
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("lessongen mutants %d: %w", g.lesson.Number, err)
	}
	var ms []mutant
	if err := json.Unmarshal(out, &ms); err != nil {
		return nil, fmt.Errorf("lessongen mutants %d: %w", g.lesson.Number, err)
	}
	return ms, nil
}

// A variant is one test binary: the learner's test with the solution (no mutant) or
// with a mutant.
type variant struct {
	mutant *mutant
	binary string
	output string // of its build, or of its run
	failed bool   // its build or its run failed
}

// gradeMemoEnv names a folder where a run keeps its gradings by what they graded. make
// test grades some tests twice: workshop testtasks proves that a lesson's empty test
// catches no bug, and workshop steps grades that same test at the step before its task;
// whichever comes second reads the first one's grade. Only a run's own folder: a grade
// kept from an earlier run would hide what changed since.
const gradeMemoEnv = "WORKSHOP_GRADE_MEMO"

// grade grades the test of task t, the file learner, with the task's mutants. extra
// adds files to the package (path in the solution: text), as the test needs them. A
// grading already kept in the run's memo (gradeMemoEnv) is not done again.
func (g grader) grade(t index.Todo, learner string, extra map[string]string, mutants []mutant) (result.Grade, gradeTiming, error) {
	memo, err := g.memoFile(t, learner, extra, mutants)
	if err != nil {
		return result.Grade{}, gradeTiming{}, err
	}
	if memo != "" {
		var kept result.Grade
		if b, err := os.ReadFile(memo); err == nil && json.Unmarshal(b, &kept) == nil {
			return kept, gradeTiming{kept: true}, nil
		}
	}
	grade, timing, err := g.gradeNow(t, learner, extra, mutants)
	if err != nil || memo == "" {
		return grade, timing, err
	}
	b, err := json.Marshal(grade)
	if err != nil {
		return grade, timing, err
	}
	// A rename, so that a grading that reads it concurrently finds it whole or not at all.
	tmp := memo + fmt.Sprintf(".%d", os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return grade, timing, err
	}
	return grade, timing, os.Rename(tmp, memo)
}

// memoFile is where the run's memo keeps the grading of learner's test of task t with
// mutants and extra, or "" when the run keeps none. Its name sums all the grading reads
// that may change within a run: the lesson and task, the test, the added files, the bugs
// and the timeout. The build flags are left out: they change how fast, not what.
func (g grader) memoFile(t index.Todo, learner string, extra map[string]string, mutants []mutant) (string, error) {
	dir := os.Getenv(gradeMemoEnv)
	if dir == "" {
		return "", nil
	}
	src, err := os.ReadFile(learner)
	if err != nil {
		return "", err
	}
	sum := sha256.New()
	fmt.Fprintf(sum, "lesson %d task %d timeout %s\n%d\n", g.lesson.Number, t.ID, g.timeout, len(src))
	sum.Write(src)
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		fmt.Fprintf(sum, "%s %d\n%s", name, len(extra[name]), extra[name])
	}
	if err := json.NewEncoder(sum).Encode(mutants); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, hex.EncodeToString(sum.Sum(nil))+".json"), nil
}

// gradeNow grades as grade does, without the memo.
func (g grader) gradeNow(t index.Todo, learner string, extra map[string]string, mutants []mutant) (grade result.Grade, timing gradeTiming, err error) {
	grade = result.Grade{Task: t.ID, Total: len(mutants)}
	solution := filepath.Join(g.root, "solutions", path.Base(g.lesson.Folder))
	tmp, err := os.MkdirTemp("", "workshop-grade-")
	if err != nil {
		return grade, timing, err
	}
	defer removeTemp(tmp, &err)
	variants := make([]*variant, len(mutants)+1)
	variants[0] = &variant{binary: filepath.Join(tmp, "correct.test")}
	for i := range mutants {
		variants[i+1] = &variant{mutant: &mutants[i], binary: filepath.Join(tmp, mutants[i].Name+".test")}
	}
	// Every binary is built at once: they share all but a file or two, which go's build
	// cache compiles once.
	start := time.Now()
	var wg sync.WaitGroup
	for i, v := range variants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.output, v.failed = g.build(solution, tmp, i, t, learner, extra, v)
		}()
	}
	wg.Wait()
	timing.build = time.Since(start)
	correct := variants[0]
	if correct.failed {
		grade.Broken = append([]string{"your test does not build:"}, lastLines(correct.output, 8)...)
		return grade, timing, nil
	}
	for _, v := range variants[1:] {
		if v.failed {
			return grade, timing, fmt.Errorf("bug %s does not build with the solution's test (a fault of tracks/*/lessons.yaml):\n%s", v.mutant.Name, v.output)
		}
	}
	pkgDir := filepath.Join(solution, filepath.FromSlash(path.Dir(t.File)))
	start = time.Now()
	g.run(pkgDir, t, correct)
	timing.correct = time.Since(start)
	if correct.failed {
		grade.Broken = append([]string{"your test fails on correct code (the solution):"}, failureLines(correct.output)...)
		return grade, timing, nil
	}
	// Each mutant's test starts a control plane of its own, and all run at once: a test
	// that catches a bug spends most of its time in an Eventually that waits out its
	// timeout, idle.
	start = time.Now()
	for _, v := range variants[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.run(pkgDir, t, v)
		}()
	}
	wg.Wait()
	timing.mutants = time.Since(start)
	for _, v := range variants[1:] {
		if v.failed {
			grade.Caught++
		} else {
			grade.Missed = append(grade.Missed, v.mutant.Bug)
		}
	}
	return grade, timing, nil
}

// build builds variant v's test binary (number i) of the package of t's file in the
// solution's module: the learner's file stands in for the solution's, and the mutant's
// files, if any, for the solution's. It returns the compiler's output and whether it
// failed.
func (g grader) build(solution, tmp string, i int, t index.Todo, learner string, extra map[string]string, v *variant) (string, bool) {
	replace := map[string]string{filepath.Join(solution, filepath.FromSlash(t.File)): learner}
	files := map[string]string{}
	maps.Copy(files, extra)
	if v.mutant != nil {
		maps.Copy(files, v.mutant.Files)
	}
	for rel, text := range files {
		file := filepath.Join(tmp, fmt.Sprintf("%d-%s", i, filepath.Base(rel)))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			return err.Error(), true
		}
		replace[filepath.Join(solution, filepath.FromSlash(rel))] = file
	}
	overlay := filepath.Join(tmp, fmt.Sprintf("%d-overlay.json", i))
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err == nil {
		err = os.WriteFile(overlay, b, 0o644)
	}
	if err != nil {
		return err.Error(), true
	}
	args := append([]string{"test", "-c"}, g.buildFlags...)
	args = append(args, "-vet=off", "-ldflags=-w", "-overlay", overlay, "-o", v.binary, "./"+path.Dir(t.File))
	cmd := exec.Command("go", args...)
	cmd.Dir = solution
	cmd.Env = g.env
	out, err := cmd.CombinedOutput()
	return string(out), err != nil
}

// run runs the tests of task t in variant v's binary, in the package's folder as go test
// does, and records whether they failed and what they printed.
func (g grader) run(pkgDir string, t index.Todo, v *variant) {
	names := make([]string, len(t.Tests))
	for i, name := range t.Tests {
		names[i] = regexp.QuoteMeta(name)
	}
	cmd := exec.Command(v.binary, "-test.run", "^("+strings.Join(names, "|")+")$", "-test.count=1",
		"-test.failfast", "-test.timeout", g.timeout.String())
	cmd.Dir = pkgDir
	cmd.Env = g.env
	out, err := cmd.CombinedOutput()
	v.output, v.failed = string(out), err != nil
}

// failureLines returns what a failed test printed of its failure: from the first line
// a _test.go file wrote, a few lines; or, if none, the output's last lines.
func failureLines(output string) []string {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	for i, line := range lines {
		if testLine.MatchString(line) {
			return lines[i:min(i+6, len(lines))]
		}
	}
	return lastLines(output, 6)
}

var testLine = regexp.MustCompile(`^\s+\S+_test\.go:\d+:`)

// lastLines returns the last n lines of text.
func lastLines(text string, n int) []string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return lines[max(0, len(lines)-n):]
}

// gradingEnv is the environment of a grading: the checkout's go.work, whose modules
// the solutions are, and its control-plane binaries, with the process marker.
func gradingEnv(root, mark string) []string {
	env := append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"), mark)
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		env = append(env, "KUBEBUILDER_ASSETS="+filepath.Join(root, ".cache", "bin", "current"))
	}
	return env
}
