package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// A test task (its TODO stands in a _test.go file) is graded by mutation: make check-N
// runs the learner's test against the lesson's solution, where it must pass, and
// against each of the task's mutants, the solution with one bug made, where it must
// fail. lessongen mutants N gives the workshop command each mutant as data: the files
// of solution N it changes, with the bug made.

// A mutantFiles is one mutant of a test task, as lessongen mutants prints it.
type mutantFiles struct {
	Task  int               `json:"task"`
	Name  string            `json:"name"`
	Bug   string            `json:"bug"`
	Files map[string]string `json:"files"` // path in the solution's module: its text with the bug made
}

// lessonMutants returns every mutant of lesson n's test tasks, made in its solution under
// root/solutions.
func lessonMutants(root string, n int) ([]mutantFiles, error) {
	t, err := trackOf(root, n)
	if err != nil {
		return nil, err
	}
	l := t.manifest.lesson(n)
	var out []mutantFiles
	for _, task := range l.Tasks {
		for _, mu := range task.Mutants {
			files, err := t.makeMutant(root, l, mu)
			if err != nil {
				return nil, fmt.Errorf("lesson %d, task %d: %w", n, task.ID, err)
			}
			out = append(out, mutantFiles{Task: task.ID, Name: mu.Name, Bug: strings.TrimSpace(mu.Bug), Files: files})
		}
	}
	return out, nil
}

// makeMutant makes mutant mu in solution l, and returns the files it changes. A bug
// that leaves an import unused still builds: the import goes too.
func (t *track) makeMutant(root string, l *lessonSpec, mu mutantSpec) (map[string]string, error) {
	edits, err := t.manifest.mutantEdits(mu)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, e := range edits {
		src, ok := files[e.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, "solutions", l.Folder, filepath.FromSlash(e.File)))
			if err != nil {
				return nil, fmt.Errorf("mutant %s: %w", mu.Name, err)
			}
			src = string(b)
		}
		out, err := replaceLines([]byte(src), e.Find, e.Instead)
		if err != nil {
			return nil, fmt.Errorf("mutant %s, in %s: %w", mu.Name, e.File, err)
		}
		files[e.File] = string(out)
	}
	for rel, src := range files {
		if strings.HasSuffix(rel, ".go") {
			out, err := dropUnusedImports(rel, []byte(src))
			if err != nil {
				return nil, fmt.Errorf("mutant %s: %s does not parse with the bug made: %w", mu.Name, rel, err)
			}
			files[rel] = string(out)
		}
	}
	return files, nil
}

// printMutants writes lesson n's mutants as JSON.
func printMutants(root string, n int, w io.Writer) error {
	mutants, err := lessonMutants(root, n)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(mutants)
}

// codeInWords finds what a bug's description must not hold: code. Backquotes, a call,
// a selector (pod.Status), an operator, braces, or a word in lowerCamelCase (a Go name:
// activePods); a reviewer says "the deletion timestamp", not deletionTimestamp.
var codeInWords = regexp.MustCompile("`|\\w\\(|\\w\\.\\w|:=|==|!=|&&|\\|\\||[{}]|\\b[a-z]+[A-Z]\\w*")

// mutantProblems checks every test task: at least three mutants, each one's edits apply
// to the task's solution, and each bug is told in words, not code; and a code task has
// no mutants.
func mutantProblems(root string, lessons []index.Lesson) ([]string, error) {
	var problems []string
	err := eachLesson(root, func(t *track, l *lessonSpec) {
		where := func(task int) string {
			return fmt.Sprintf("tracks/%s/lessons.yaml: lesson %d, task %d", t.name, l.Number, task)
		}
		for _, task := range l.Tasks {
			isTest := isTestTask(lessons, l.Number, task.ID)
			switch {
			case isTest && len(task.Mutants) < 3:
				problems = append(problems, fmt.Sprintf("%s: a test task lists %d mutants; give at least three bugs its test must catch", where(task.ID), len(task.Mutants)))
			case !isTest && len(task.Mutants) > 0:
				problems = append(problems, fmt.Sprintf("%s: mutants grade a test task (its TODO in a _test.go file); this task's TODO is in code", where(task.ID)))
			}
			for _, mu := range task.Mutants {
				if _, err := t.makeMutant(root, l, mu); err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", where(task.ID), err))
				}
				if code := codeInWords.FindString(mu.Bug); code != "" {
					problems = append(problems, fmt.Sprintf("%s: mutant %s: bug %q shows code (%q): say what is wrong in a reviewer's words", where(task.ID), mu.Name, strings.TrimSpace(mu.Bug), code))
				}
			}
		}
	})
	return problems, err
}

// isTestTask says whether task id of lesson n is a test task: lessons/index.json has
// its TODO in a _test.go file.
func isTestTask(lessons []index.Lesson, n, id int) bool {
	for _, l := range lessons {
		if l.Number == n {
			for _, todo := range l.Todos {
				if todo.ID == id {
					return todo.IsTest()
				}
			}
		}
	}
	return false
}
