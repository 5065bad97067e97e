package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// Three rules of the lessons that make test's slow phases would find only after
// minutes, checked here from the files alone, in seconds (make verify runs them):
//   - a package's tests run in the order of the tasks they check, so that the first
//     failure of make check-N is always the first task not done;
//   - each marked mistake's lines are in its stage once, so that the mistake can be made;
//   - a walkthrough's hint that names TODO(k) names a task of its lesson, and the
//     function it names next is in that task's file.

// testOrderProblems checks every lesson's solution: go test runs a package's test files
// in the order of their names and each file's tests top to bottom, so a task's tests
// must come after those of every task before it.
func testOrderProblems(root string, lessons []index.Lesson) ([]string, error) {
	var problems []string
	// A test an earlier lesson's task named guards what the learner has done already: a
	// task names it again because doing the task wrong breaks it. It stays where that
	// lesson put it, wherever the new tasks fall. By operator: a track's lessons.
	earlier := map[string]map[string]bool{}
	for _, l := range lessons {
		taskOf := map[string]int{}
		for _, t := range l.Todos {
			if t.IsTest() {
				continue // graded against the solution, not run with the tasks (make check-N)
			}
			for _, name := range t.Tests {
				if !earlier[l.Operator][name] {
					taskOf[name] = t.ID
				}
			}
		}
		if earlier[l.Operator] == nil {
			earlier[l.Operator] = map[string]bool{}
		}
		for _, t := range l.Todos {
			for _, name := range t.Tests {
				earlier[l.Operator][name] = true
			}
		}
		dir := filepath.Join(root, "solutions", path.Base(l.Folder))
		packages := map[string][]string{} // package folder -> its test files, in name order
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, "_test.go") {
				packages[filepath.Dir(p)] = append(packages[filepath.Dir(p)], p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, pkg := range slices.Sorted(maps.Keys(packages)) {
			files := packages[pkg]
			slices.Sort(files)
			last, lastName := 0, ""
			for _, file := range files {
				f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
				if err != nil {
					return nil, err
				}
				for _, decl := range f.Decls {
					fn, ok := decl.(*ast.FuncDecl)
					if !ok || fn.Recv != nil {
						continue
					}
					task, checked := taskOf[fn.Name.Name]
					if !checked {
						continue
					}
					if task < last {
						rel, _ := filepath.Rel(root, file)
						problems = append(problems, fmt.Sprintf(
							"%s: %s (task %d) runs after %s (task %d): go test runs a package's files in name order and each top to bottom; a task's tests must come after the earlier tasks'",
							filepath.ToSlash(rel), fn.Name.Name, task, lastName, last))
					}
					if task >= last {
						last, lastName = task, fn.Name.Name
					}
				}
			}
		}
	}
	return problems, nil
}

// mistakeProblems checks that the lines each marked mistake replaces are in its stage's
// solution once, as lessongen solution -mistake needs them.
func mistakeProblems(root string) ([]string, error) {
	var problems []string
	err := eachLesson(root, func(t *track, l *lessonSpec) {
		for task, m := range l.allMistakes() {
			for _, e := range m.Edits {
				file := filepath.Join(root, "solutions", l.Folder, filepath.FromSlash(e.File))
				src, err := os.ReadFile(file)
				if err == nil {
					_, err = replaceLines(src, e.Find, e.Instead)
				}
				if err != nil {
					problems = append(problems, fmt.Sprintf("tracks/%s/lessons.yaml: lesson %d, task %d, mistake %s: %v",
						t.name, l.Number, task, m.Name, err))
				}
			}
		}
	})
	return problems, err
}

// A hint of a walkthrough that names a task: "TODO(3): concernsPool should ...".
var walkthroughTodo = regexp.MustCompile(`TODO\((\d+)\)(?:: ([A-Za-z_][A-Za-z0-9_.]*))?`)

// A Go function of the lesson, as hints name them: setPoolLabels, r.Apply.
var camelCase = regexp.MustCompile(`^(?:[a-z]\w*\.)?[a-z]+[A-Z]\w*$`)

// walkthroughProblems checks the hints of scripts/walkthroughs/NN.sh against lesson NN.
func walkthroughProblems(root string, lessons []index.Lesson) ([]string, error) {
	var problems []string
	for _, l := range lessons {
		script := fmt.Sprintf("scripts/walkthroughs/%02d.sh", l.Number)
		src, err := os.ReadFile(filepath.Join(root, script))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			for _, m := range walkthroughTodo.FindAllStringSubmatch(line, -1) {
				k, _ := strconv.Atoi(m[1])
				at := slices.IndexFunc(l.Todos, func(t index.Todo) bool { return t.ID == k })
				if at < 0 {
					problems = append(problems, fmt.Sprintf("%s:%d: TODO(%d): lesson %d has tasks 1 to %d",
						script, i+1, k, l.Number, len(l.Todos)))
					continue
				}
				name := m[2]
				if !camelCase.MatchString(name) {
					continue // a sentence or a path follows, not a function
				}
				name = name[strings.LastIndex(name, ".")+1:]
				file := filepath.Join(root, "solutions", path.Base(l.Folder), filepath.FromSlash(l.Todos[at].File))
				code, err := os.ReadFile(file)
				if err != nil {
					return nil, err
				}
				if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).Match(code) {
					problems = append(problems, fmt.Sprintf("%s:%d: TODO(%d) is %q, in %s, which does not mention %s",
						script, i+1, k, l.Todos[at].Title, l.Todos[at].File, name))
				}
			}
		}
	}
	return problems, nil
}

// ruleProblems runs the checks, and those of the test tasks' mutants (mutants.go).
func ruleProblems(root string) ([]string, error) {
	lessons, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	if err != nil {
		return nil, err
	}
	order, err := testOrderProblems(root, lessons)
	if err != nil {
		return nil, err
	}
	mistakes, err := mistakeProblems(root)
	if err != nil {
		return nil, err
	}
	walkthroughs, err := walkthroughProblems(root, lessons)
	if err != nil {
		return nil, err
	}
	mutants, err := mutantProblems(root, lessons)
	if err != nil {
		return nil, err
	}
	return slices.Concat(order, mistakes, walkthroughs, mutants), nil
}
