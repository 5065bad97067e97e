package main

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/checktimes"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// workshop steps [TRACK] checks that each task of each lesson (of TRACK's, or of every
// track's) is what turns its tests green: for k = 0 .. n-1 it writes the lesson with
// tasks 1 to k solved (lessongen lesson -done k) into a scratch checkout, runs the tests
// of tasks 1 to k+1 as make check-N does (in the packages that hold them), and requires
// tasks 1 to k done and task k+1 failing (todos expect). A later task whose tests pass
// without its code fails the step before it; step n is the solution, whose tests the
// unit phase of make test runs. The steps are independent: JOBS run at a time. It
// prints how long the tests of each step ran and each lesson's slowest step, about what
// a learner waits for at a make check-N once the lesson is built, beside the figures
// docs/check-times.tsv records; a run of every track that passes leaves its figures in
// .cache/test/todos-all/times.tsv for workshop record-times.
func stepsCommand(root string, args []string) error {
	c, track, indexed, err := prepareChecks(root, "steps", args)
	if err != nil {
		return err
	}
	lessons, err := readLessonRows(c.lessongen, root, track)
	if err != nil {
		return err
	}
	// A lesson that starts empty has no stage between nothing and its solution: its
	// requirements are graded from outside (make check-N), its mistakes by workshop
	// mistakes, and a scaffold without logic by workshop capstone-scaffold.
	lessons = slices.DeleteFunc(lessons, func(l lessonRow) bool { return lessonOf(indexed, l.folder).StartsEmpty })
	if len(lessons) == 0 {
		return fmt.Errorf("no lessons in %s", cmp.Or(track, "any track"))
	}
	for _, l := range lessons {
		if l.tasks == 0 {
			return fmt.Errorf("lessons/%s has no task in tracks/%s/lessons.yaml", l.folder, l.track)
		}
	}
	results, err := freshFolder(root, "todos-"+cmp.Or(track, "all"))
	if err != nil {
		return err
	}
	steps := stepOrder(lessons)
	say("Solving the tasks of %d lessons one at a time: %d steps, %d at a time (logs: %s)", len(lessons), len(steps), jobs(), rel(root, results))
	inParallel(len(steps), func(i int) {
		s := steps[i]
		if err := c.step(results, lessonOf(indexed, s.folder), s.folder, s.solved); err != nil {
			appendLog(s.log(results), err)
		}
	})
	return c.reportSteps(results, lessons)
}

// step is one step of workshop steps: a lesson with tasks 1 to solved solved.
type step struct {
	folder string
	solved int
}

func (s step) log(results string) string {
	return filepath.Join(results, fmt.Sprintf("%s.%d.log", s.folder, s.solved))
}

func (s step) result(results string) string {
	return filepath.Join(results, fmt.Sprintf("%s.%d.json", s.folder, s.solved))
}

// stepOrder orders the steps by how far into its lesson each one is, step k of a lesson
// of n tasks at (k+1/2)/n, so that two steps that run at once are of two lessons. In
// lesson order, two steps of lesson 07 ran at once, each starting two control planes,
// and its slowest step took 26s; in rounds (step k of every lesson in round k), lesson
// 03's last steps, alone in their rounds, ran together.
func stepOrder(lessons []lessonRow) []step {
	type placed struct {
		at float64
		s  step
	}
	var all []placed
	for _, l := range lessons {
		for k := range l.tasks {
			all = append(all, placed{(float64(k) + 0.5) / float64(l.tasks), step{l.folder, k}})
		}
	}
	slices.SortStableFunc(all, func(a, b placed) int { return cmp.Compare(a.at, b.at) })
	out := make([]step, len(all))
	for i, p := range all {
		out[i] = p.s
	}
	return out
}

// step writes lesson folder with tasks 1 to solved solved into a scratch checkout and
// runs its tests: only the packages that hold tests of tasks 1 to solved+1 are linked
// into test binaries and start a control plane, and only those tests run. Step 0, the
// lesson as the learner gets it, also type-checks every package and its tests (go vet,
// which links nothing). A later step compiles what its tests need: their packages and
// what those import. The rest compiles with every task unsolved (step 0) and with every
// task solved (the solution, which make test vets); type-checking it again at each step
// cost about a third of a step's CPU.
func (c *checks) step(results string, l index.Lesson, folder string, solved int) (err error) {
	s := step{folder, solved}
	log, err := os.Create(s.log(results))
	if err != nil {
		return err
	}
	defer log.Close()
	dir, top, err := c.scratchStage("lessons", folder, log, "-done", strconv.Itoa(solved))
	if top != "" {
		defer removeTemp(top, &err)
	}
	if err != nil {
		return err
	}
	if solved == 0 {
		if err := c.run(log, dir, "go", append(append([]string{"vet"}, c.buildFlags...), "./...")...); err != nil {
			return err
		}
	}
	args := []string{"expect", "-done", strconv.Itoa(solved), "-result", s.result(results)}
	// A test task is graded as make check-N grades it, from the step where it is the
	// next to solve (its empty test must catch no bug) on (its solution's, every bug).
	var graded []index.Todo
	for _, t := range testTasks(l) {
		if t.ID <= solved+1 {
			graded = append(graded, t)
		}
	}
	if len(graded) > 0 {
		grades := filepath.Join(top, "tmp", "grades.json")
		report := func(format string, a ...any) { fmt.Fprintf(log, format+"\n", a...) }
		if err := gradeTasks(c.root, c.lessongen, l, graded, dir, grades, gradingEnv(c.root, c.mark), report); err != nil {
			return err
		}
		args = append(args, "-grades", grades)
	}
	return c.stageTests(dir, l, log, args...)
}

// reportSteps says, lesson by lesson, whether every step went as its tests say, with
// the tests' time at each step, and fails if one did not.
func (c *checks) reportSteps(results string, lessons []lessonRow) error {
	recorded := map[string]checktimes.Time{}
	if times, err := checktimes.Read(filepath.Join(c.root, checktimes.File)); err == nil {
		for _, t := range times {
			recorded[t.Folder] = t
		}
	}
	var partial []checktimes.Time
	var slowest []string
	bad := false
	count := 0
	for _, l := range lessons {
		var failed []int
		var times []string
		worst := checktimes.Time{Folder: l.folder, Slowest: -1}
		first := ""
		for k := range l.tasks {
			count++
			s := step{l.folder, k}
			res, err := result.ReadStep(s.result(results))
			if err != nil || !res.OK {
				failed = append(failed, k)
			}
			seconds := "?"
			if err == nil {
				seconds = fmt.Sprintf("%.1f", res.TestSeconds)
				if k == 0 {
					worst.Untouched = res.TestSeconds
				}
				if math.Round(res.TestSeconds) >= math.Round(worst.Slowest) {
					worst.Slowest, worst.SlowestAt = res.TestSeconds, k
					first = ""
					if res.FirstFailure != "" {
						first = fmt.Sprintf(" (task %d failed first in %s, after %.1fs)", k+1, res.FirstFailure, res.FirstSeconds)
					}
				}
			}
			times = append(times, fmt.Sprintf("%d:%ss", k, seconds))
		}
		if len(failed) == 0 {
			say("lessons/%s: each of its %d tasks turns its own tests green, in order", l.folder, l.tasks)
		} else {
			bad = true
			for _, k := range failed {
				warn("lessons/%s with tasks 1-%d solved:\n%s", l.folder, k, tail(step{l.folder, k}.log(results), 20))
			}
		}
		say("  the tests' time at each step (tasks solved:seconds, the build before them left out): %s", strings.Join(times, " "))
		was := "nothing"
		if r, ok := recorded[l.folder]; ok {
			was = fmt.Sprintf("%gs untouched, %gs at the slowest step", r.Untouched, r.Slowest)
		}
		worst.Slowest = max(worst.Slowest, 0)
		say("  %s records %s; this run: %.1fs untouched, %.0fs at the slowest step", checktimes.File, was, worst.Untouched, math.Round(worst.Slowest))
		partial = append(partial, worst)
		solved := fmt.Sprintf("tasks 1-%d solved", worst.SlowestAt)
		switch worst.SlowestAt {
		case 0:
			solved = "no task solved"
		case 1:
			solved = "task 1 solved"
		}
		slowest = append(slowest, fmt.Sprintf("%4.0fs  lessons/%s with %s%s", math.Round(worst.Slowest), l.folder, solved, first))
	}
	say("The slowest step of each lesson (%d steps at a time; the goal is 15s or less):", jobs())
	fmt.Fprintf(stderr, "  %s\n", strings.Join(slowest, "\n  "))
	if err := c.noSurvivors("the lessons' steps"); err != nil {
		return err
	}
	if bad {
		return fmt.Errorf("some tasks are not what turns their tests green (logs: %s)", rel(c.root, results))
	}
	// Only a run that passed has figures to record (workshop record-times).
	if err := checktimes.Write(filepath.Join(results, "times.tsv"), partial, ""); err != nil {
		return err
	}
	say("All %d steps of the lessons' tasks are as their tests say", count)
	return nil
}

// lessonOf returns the lesson of lessons whose folder is folder.
func lessonOf(lessons []index.Lesson, folder string) index.Lesson {
	for _, l := range lessons {
		if filepath.Base(l.Folder) == folder {
			return l
		}
	}
	return index.Lesson{}
}

// appendLog adds an error to a step's log: what stopped it before its tests said.
func appendLog(name string, err error) {
	f, ferr := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "\n%v\n", err)
}

// rel returns path relative to root, for messages.
func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}
