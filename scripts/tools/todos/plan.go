package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// testFunc finds the tests and fuzz targets a _test.go file declares: a task may name
// either.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w*)\(`)

// A plan is the go test runs of a check stopped at the first failure. The tests of the
// tasks come first, alone: only the packages that hold them are built and started, and
// a step of a lesson does not wait for the earlier lessons' tests. The others (the tests
// no task names: what the solution keeps from earlier lessons) run once every task is
// done, in the packages that hold them.
type plan struct {
	tasks  []string // the tests of the tasks checked, in the order of the tasks
	first  []string // the packages that hold them
	others []string // the packages that hold a test no task names; none when not every task is checked
}

// planRuns plans the check of tasks 1 to upto of lesson l in the module in dir.
func planRuns(l index.Lesson, dir string, upto int) (plan, error) {
	if upto < 1 || upto > len(l.Todos) {
		return plan{}, fmt.Errorf("lesson %d has the tasks 1 to %d (got %d)", l.Number, len(l.Todos), upto)
	}
	where, err := testPackages(dir)
	if err != nil {
		return plan{}, err
	}
	var p plan
	for _, t := range l.Todos[:upto] {
		if t.IsTest() {
			// A test task's test is graded against the solution (the workshop command),
			// not run on the learner's code as a task's test.
			continue
		}
		for _, name := range t.Tests {
			pkg, ok := where[name]
			if !ok {
				return plan{}, fmt.Errorf("lesson %d, task %d: no _test.go file under %s declares %s", l.Number, t.ID, dir, name)
			}
			p.tasks = append(p.tasks, name)
			if !slices.Contains(p.first, pkg) {
				p.first = append(p.first, pkg)
			}
		}
	}
	slices.Sort(p.first)
	if upto == len(l.Todos) {
		for name, pkg := range where {
			if !slices.Contains(p.tasks, name) && !slices.Contains(p.others, pkg) {
				p.others = append(p.others, pkg)
			}
		}
		slices.Sort(p.others)
	}
	return p, nil
}

// firstRun is go test (args, without packages) of the tasks' tests.
func (p plan) firstRun(args []string) []string {
	return append(slices.Concat(args, []string{"-run", p.names()}), p.first...)
}

// othersRun is go test (args, without packages) of every other test.
func (p plan) othersRun(args []string) []string {
	return append(slices.Concat(args, []string{"-skip", p.names()}), p.others...)
}

// names matches the tasks' tests by their whole names; their subtests go with them.
func (p plan) names() string {
	quoted := make([]string, len(p.tasks))
	for i, name := range p.tasks {
		quoted[i] = regexp.QuoteMeta(name)
	}
	return "^(" + strings.Join(quoted, "|") + ")$"
}

// testPackages maps each test function of the module in dir to its package, as go test
// names it relative to dir (./internal/controller).
func testPackages(dir string) (map[string]string, error) {
	where := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(rel)
		if rel == "." {
			pkg = "."
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			where[string(m[1])] = pkg
		}
		return nil
	})
	return where, err
}
