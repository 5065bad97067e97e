package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// A track's manifest, tracks/<track>/lessons.yaml, holds everything about its lessons
// that is not code: which files enter the track whole in which lesson, and each task's
// title, TODO text, hints and tests, and the mistakes learners make. The code marks only
// where each task is written (see source.go).
type manifest struct {
	// Operator is the kind the track's controller manages, as lessons/index.json names it.
	Operator string `yaml:"operator"`
	// Borrows are files another track writes: they are generated into this track too.
	Borrows []borrow     `yaml:"borrows"`
	Lessons []lessonSpec `yaml:"lessons"`
}

// A borrow takes files, as one stage of another track has them, into this track, so that
// two tracks that teach the same API serve it from one source.
type borrow struct {
	Track string   `yaml:"track"`
	Stage int      `yaml:"stage"`
	Files []string `yaml:"files"`
}

type lessonSpec struct {
	Number int    `yaml:"number"`
	Folder string `yaml:"folder"` // NN-name, the folder of the lesson and of its solution
	// Timeout is go test's -timeout for the lesson's tests (make check-N and the
	// maintainers' checks): a few times the slowest green run of a package, so that a
	// test that never returns is reported, stuck where it stands, in a minute or two
	// rather than after go test's ten.
	Timeout string `yaml:"timeout"`
	// Files enter the track whole in this lesson: they exist from its stage on.
	Files []string `yaml:"files"`
	// Renames are words the code says from this lesson on, each with the word that stood
	// in its place before: a new API version the code moves to (appsv2: appsv1). Earlier
	// stages read every key as its value, in every file they have.
	Renames map[string]string `yaml:"renames"`
	// Replaces are files this lesson rewrites whole, or removes: the stages before it
	// take each from _before<N>/<file> in the track (N this lesson's number), a folder Go
	// and controller-gen ignore, so that the track's module holds only its last stage.
	Replaces []string `yaml:"replaces"`
	// Empty says the learner starts the lesson from an empty folder (the capstone): the
	// lesson holds its README alone, and the learner scaffolds the module with kubebuilder.
	// Its tasks are the requirements of the lesson's spec: no //lesson: marker places them
	// in the code and they have no TODO text; each names the test of the grading suite
	// (scripts/tools/capstone) that checks it. The solution is the track's last stage.
	Empty    bool          `yaml:"empty"`
	Tasks    []taskSpec    `yaml:"tasks"`
	Mistakes []mistakeSpec `yaml:"mistakes"`
}

type taskSpec struct {
	ID    int    `yaml:"id"`
	Title string `yaml:"title"`
	// Todo is the text under the task's TODO(K) line, where //lesson:N.K stands.
	Todo  string   `yaml:"todo"`
	Hints []string `yaml:"hints"`
	Tests []string `yaml:"tests"`
	// Also holds the other places where the task is written (//lesson:N.K NAME), each
	// with its own text; the text's first line follows its TODO(K).
	Also     map[string]string `yaml:"also"`
	Mistakes []mistakeSpec     `yaml:"mistakes"`
	// Mutants are the bugs a test task's test must catch (a test task: its TODO stands in
	// a _test.go file, and the learner writes the test). Each is a marked mistake of the
	// track, named, or a bug of its own with its edits.
	Mutants []mutantSpec `yaml:"mutants"`
	// File is where the learner writes a test task's test in a lesson that starts empty,
	// which no //lesson: marker can place: the path the solution has it at.
	File string `yaml:"file"`
}

// A mutant is a bug a learner's test must catch: make check-N runs the test against the
// solution with the bug made, and the test must fail. Bug says what is wrong in the
// words a reviewer would use, never the code: it is what the checklist shows for a bug
// the test misses. Without Edits, Name is a marked mistake of the track, whose edits
// make the bug.
type mutantSpec struct {
	Name  string     `yaml:"name"`
	Bug   string     `yaml:"bug"`
	Edits []editSpec `yaml:"edits"`
}

// A mistake is code learners often get wrong, and how: the maintainers' check makes it
// in a scratch copy of the stage, and the tests must catch it, saying Says.
type mistakeSpec struct {
	Name  string     `yaml:"name"`
	Says  string     `yaml:"says"`
	Edits []editSpec `yaml:"edits"`
}

// An edit replaces the lines Find of File (compared without their indentation) with the
// lines Instead, indented like the first line found.
type editSpec struct {
	File    string `yaml:"file"`
	Find    string `yaml:"find"`
	Instead string `yaml:"instead"`
}

const manifestFile = "lessons.yaml"

// readManifest reads and checks a track's manifest. Unknown keys are errors, so that a
// misspelt one is not silently ignored.
func readManifest(path string) (*manifest, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	var m manifest
	if err := dec.Decode(&m); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// check reports what makes a manifest unusable, naming the lesson, task and field.
func (m *manifest) check() error {
	if m.Operator == "" {
		return errors.New("operator: the kind the track's controller manages is missing")
	}
	if len(m.Lessons) == 0 {
		return errors.New("lessons: a track has at least one lesson")
	}
	mistakes := map[string]bool{}
	for i, l := range m.Lessons {
		if i > 0 && l.Number <= m.Lessons[i-1].Number {
			return fmt.Errorf("lesson %d: lessons are listed in increasing order", l.Number)
		}
		if !strings.HasPrefix(l.Folder, fmt.Sprintf("%02d-", l.Number)) {
			return fmt.Errorf("lesson %d: folder %q must start with %02d-", l.Number, l.Folder, l.Number)
		}
		if d, err := time.ParseDuration(l.Timeout); err != nil || d < 10*time.Second {
			return fmt.Errorf("lesson %d: timeout %q: give go test's -timeout for the lesson's tests, such as 60s, a few times its slowest green run", l.Number, l.Timeout)
		}
		if len(l.Tasks) == 0 {
			return fmt.Errorf("lesson %d: a lesson without a task: give it one, and mark where it is written with //lesson:%d.1", l.Number, l.Number)
		}
		if i == 0 && (len(l.Files) > 0 || len(l.Renames) > 0 || len(l.Replaces) > 0) {
			return fmt.Errorf("lesson %d: files, renames and replaces say what changes in a later lesson: the track's first has none", l.Number)
		}
		for from, to := range l.Renames {
			if from == "" || to == "" || strings.ContainsAny(from+to, " \t\n") {
				return fmt.Errorf("lesson %d: renames: %q: %q: each is one word and the word it replaces", l.Number, from, to)
			}
		}
		if l.Empty && (i > 0 || len(m.Lessons) > 1) {
			return fmt.Errorf("lesson %d: empty: a lesson that starts from an empty folder is its track's only lesson", l.Number)
		}
		for j, t := range l.Tasks {
			where := fmt.Sprintf("lesson %d, task %d", l.Number, t.ID)
			switch {
			case l.Empty && (t.Todo != "" || len(t.Also) > 0):
				return fmt.Errorf("%s: todo, also: a lesson that starts empty has no TODO in its code; say the requirement in the page", where)
			case t.File != "" && !l.Empty:
				return fmt.Errorf("%s: file: only a test task of a lesson that starts empty names its file; elsewhere its //lesson: marker places it", where)
			case t.File != "" && !strings.HasSuffix(t.File, "_test.go"):
				return fmt.Errorf("%s: file: %s: a test task's file is a _test.go file", where, t.File)
			case t.File != "" && len(t.Mutants) == 0:
				return fmt.Errorf("%s: file: a test task lists the bugs its test must catch (mutants)", where)
			case l.Empty && len(t.Tests) != 1:
				return fmt.Errorf("%s: tests: a requirement of a lesson that starts empty is one test of its grading suite; %d given", where, len(t.Tests))
			case t.ID != j+1:
				return fmt.Errorf("lesson %d: the tasks are numbered 1, 2, ... in order; task %d is number %d", l.Number, j+1, t.ID)
			case strings.TrimSpace(t.Title) == "":
				return fmt.Errorf("%s: title is missing", where)
			case len(t.Hints) < 2 || len(t.Hints) > 3:
				return fmt.Errorf("%s: %d hints; give two or three, from a nudge to the API to use", where, len(t.Hints))
			case len(t.Tests) == 0:
				return fmt.Errorf("%s: tests: name the tests that fail until the task is done", where)
			}
			for _, ms := range t.Mistakes {
				if err := checkMistake(ms, where, mistakes); err != nil {
					return err
				}
			}
			if err := checkMutants(t.Mutants, where); err != nil {
				return err
			}
		}
		for _, ms := range l.Mistakes {
			if err := checkMistake(ms, fmt.Sprintf("lesson %d", l.Number), mistakes); err != nil {
				return err
			}
		}
	}
	for _, b := range m.Borrows {
		if b.Track == "" || b.Stage == 0 || len(b.Files) == 0 {
			return fmt.Errorf("borrows: each names a track, a stage and files (got %+v)", b)
		}
	}
	return nil
}

func checkMistake(ms mistakeSpec, where string, seen map[string]bool) error {
	switch {
	case ms.Name == "" || strings.ContainsAny(ms.Name, " \t/"):
		return fmt.Errorf("%s: a mistake's name is one word (got %q)", where, ms.Name)
	case seen[ms.Name]:
		return fmt.Errorf("%s: mistake %s: another mistake of the track has that name", where, ms.Name)
	case strings.TrimSpace(ms.Says) == "":
		return fmt.Errorf("%s: mistake %s: says: the words the failing test prints are missing", where, ms.Name)
	case len(ms.Edits) == 0:
		return fmt.Errorf("%s: mistake %s: edits: say what the mistake changes", where, ms.Name)
	}
	for _, e := range ms.Edits {
		if e.File == "" || strings.TrimSpace(e.Find) == "" {
			return fmt.Errorf("%s: mistake %s: each edit names a file and the lines to find", where, ms.Name)
		}
	}
	seen[ms.Name] = true
	return nil
}

// checkMutants reports a test task's mutant without a name, a bug or with a bug named
// twice. Whether each mutant's edits apply, and whether its bug names code, lint checks
// (mutantProblems), as does the rule that a test task has at least three.
func checkMutants(mutants []mutantSpec, where string) error {
	seen := map[string]bool{}
	for _, mu := range mutants {
		switch {
		case mu.Name == "" || strings.ContainsAny(mu.Name, " \t/"):
			return fmt.Errorf("%s: a mutant's name is one word (got %q)", where, mu.Name)
		case seen[mu.Name]:
			return fmt.Errorf("%s: mutant %s is listed twice", where, mu.Name)
		case strings.TrimSpace(mu.Bug) == "":
			return fmt.Errorf("%s: mutant %s: bug: say what is wrong, in a reviewer's words", where, mu.Name)
		}
		for _, e := range mu.Edits {
			if e.File == "" || strings.TrimSpace(e.Find) == "" {
				return fmt.Errorf("%s: mutant %s: each edit names a file and the lines to find", where, mu.Name)
			}
		}
		seen[mu.Name] = true
	}
	return nil
}

// mutantEdits returns the edits that make mutant mu: its own, or those of the marked
// mistake it names.
func (m *manifest) mutantEdits(mu mutantSpec) ([]editSpec, error) {
	if len(mu.Edits) > 0 {
		return mu.Edits, nil
	}
	ms, _ := m.mistake(mu.Name)
	if ms == nil {
		return nil, fmt.Errorf("mutant %s has no edits and no marked mistake of the track has that name", mu.Name)
	}
	return ms.Edits, nil
}

// lesson returns the lesson numbered n.
func (m *manifest) lesson(n int) *lessonSpec {
	for i := range m.Lessons {
		if m.Lessons[i].Number == n {
			return &m.Lessons[i]
		}
	}
	return nil
}

// firstStage returns the number of the track's first lesson.
func (m *manifest) firstStage() int { return m.Lessons[0].Number }

// enters returns the lesson in which a file enters the track whole, or the track's first.
func (m *manifest) enters(rel string) int {
	for _, l := range m.Lessons {
		if slices.Contains(l.Files, filepath.ToSlash(rel)) {
			return l.Number
		}
	}
	return m.firstStage()
}

// beforeFolder is the folder of a track that holds, for lesson n, the files n replaces as
// the stages before it have them.
func beforeFolder(n int) string { return fmt.Sprintf("_before%d/", n) }

// versionOf says which stages a file of the track stands for, by its path: a file under
// _before<N>/ is the version of the file it names (name) for the stages from the
// previous lesson that replaces it, or the first, up to N (until, excluded); any other
// file is the version from the last lesson that replaces it on (until 0: no end).
func (m *manifest) versionOf(rel string) (name string, from, until int) {
	name = rel
	if folder, inner, ok := strings.Cut(rel, "/"); ok && strings.HasPrefix(folder, "_before") {
		if n, err := strconv.Atoi(strings.TrimPrefix(folder, "_before")); err == nil {
			name, until = inner, n
		}
	}
	from = m.enters(name)
	for _, l := range m.Lessons {
		if (until == 0 || l.Number < until) && slices.Contains(l.Replaces, name) {
			from = l.Number
		}
	}
	return name, from, until
}

// mistake returns the mistake named name, and the lesson it is made in.
func (m *manifest) mistake(name string) (*mistakeSpec, int) {
	for i := range m.Lessons {
		for _, ms := range m.Lessons[i].allMistakes() {
			if ms.Name == name {
				return ms, m.Lessons[i].Number
			}
		}
	}
	return nil, 0
}

// allMistakes yields every mistake of the lesson: each task's, with the task's ID, then
// the lesson's own, with 0.
func (l *lessonSpec) allMistakes() iter.Seq2[int, *mistakeSpec] {
	return func(yield func(int, *mistakeSpec) bool) {
		for _, t := range l.Tasks {
			for i := range t.Mistakes {
				if !yield(t.ID, &t.Mistakes[i]) {
					return
				}
			}
		}
		for i := range l.Mistakes {
			if !yield(0, &l.Mistakes[i]) {
				return
			}
		}
	}
}
