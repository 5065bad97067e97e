package main

import (
	"bufio"
	"bytes"
	"fmt"
	goformat "go/format"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/tools/imports"
)

// The lesson markers of Go files. YAML files, Dockerfiles and other files with #
// comments use the same words after # (#lesson:todo(1), #lesson:stub, #lesson:end), and
// their TODOs become # TODO(1): comments.
const anyMarker = "//lesson:"

// lessonMarkers returns the todo, stub and end markers, and their common prefix, for
// files whose comments start with comment (// or #).
func lessonMarkers(comment string) (todo, stub, end, prefix string) {
	prefix = comment + "lesson:"
	return prefix + "todo", prefix + "stub", prefix + "end", prefix
}

// A todo is one task of a lesson, as its solution's markers describe it. A task may be
// written in several places (blocks with the same id); one of them, the task's main
// block, carries its hints and the tests that check it.
type todo struct {
	ID    int      `json:"id"`
	Title string   `json:"title"`
	File  string   `json:"file"` // the main block's file in the lesson, and the line of its TODO
	Line  int      `json:"line"`
	Hints []string `json:"hints"`
	Tests []string `json:"tests"`
}

// generate writes the lesson for the solution in from to the folder to, which it
// empties first. The tasks numbered up to done are left solved: the maintainer's check
// that each task's tests turn green with it (scripts/lessons.sh todos). It returns the
// lesson's tasks.
func generate(from, to string, done int) ([]todo, error) {
	fromMod, toMod, err := modulePaths(from, to)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(to); err != nil {
		return nil, err
	}
	var blocks []todo
	err = filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, found, err := lessonFile(path, src, fromMod, toMod, done)
		if err != nil {
			return err
		}
		for _, b := range found {
			b.File = filepath.ToSlash(rel)
			b.Line = todoLine(out, b.ID)
			blocks = append(blocks, b)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, out, info.Mode().Perm())
	})
	if err != nil {
		return nil, err
	}
	return tasks(from, blocks)
}

// todoLine returns the line of a lesson file where TODO(id) stands, 0 if it does not.
func todoLine(lesson []byte, id int) int {
	i := bytes.Index(lesson, fmt.Appendf(nil, "TODO(%d):", id))
	if i < 0 {
		return 0
	}
	return bytes.Count(lesson[:i], []byte("\n")) + 1
}

// tasks checks the blocks of a lesson and returns its tasks in the order of their ids:
// every block has an id, the ids are 1 to n, each task has one main block with two or
// three hints and the tests that check it, and those tests exist.
func tasks(from string, blocks []todo) ([]todo, error) {
	byID := map[int]*todo{}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%s: a lesson without a task: mark what the learner writes with //lesson:todo(1) and its title", from)
	}
	for _, b := range blocks {
		if b.ID == 0 {
			return nil, fmt.Errorf("%s/%s: a TODO block without its task's number: start it with //lesson:todo(N) and the task's title", from, b.File)
		}
		if len(b.Hints) == 0 && len(b.Tests) == 0 {
			continue // another place of a task: its main block says the rest
		}
		if prev, ok := byID[b.ID]; ok {
			return nil, fmt.Errorf("%s: task %d has hints or tests in %s and in %s: give them in one block only", from, b.ID, prev.File, b.File)
		}
		if len(b.Hints) < 2 || len(b.Hints) > 3 {
			return nil, fmt.Errorf("%s/%s: task %d has %d hints (//lesson:hint lines); give two or three, from a nudge to the API to use", from, b.File, b.ID, len(b.Hints))
		}
		if len(b.Tests) == 0 {
			return nil, fmt.Errorf("%s/%s: task %d names no test (//lesson:test TestName): name those that fail until it is done", from, b.File, b.ID)
		}
		byID[b.ID] = &b
	}
	for _, b := range blocks {
		if byID[b.ID] == nil {
			return nil, fmt.Errorf("%s/%s: task %d has no block with its hints and tests (//lesson:hint, //lesson:test)", from, b.File, b.ID)
		}
	}
	defined, err := testNames(from)
	if err != nil {
		return nil, err
	}
	out := make([]todo, 0, len(byID))
	for id := 1; id <= len(byID); id++ {
		t, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%s: the tasks are numbered 1 to %d, but there is no task %d", from, len(byID), id)
		}
		for _, name := range t.Tests {
			if !defined[name] {
				return nil, fmt.Errorf("%s/%s: task %d names %s, which no _test.go file of the module defines", from, t.File, id, name)
			}
		}
		out = append(out, *t)
	}
	return out, nil
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w*)\(\w+ \*testing\.T\)`)

// testNames returns the top-level tests of a module.
func testNames(dir string) (map[string]bool, error) {
	names := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			names[string(m[1])] = true
		}
		return err
	})
	return names, err
}

// modulePaths derives the lesson's module path from the solution's go.mod.
func modulePaths(from, to string) (string, string, error) {
	gomod, err := os.ReadFile(filepath.Join(from, "go.mod"))
	if err != nil {
		return "", "", err
	}
	first, _, _ := bytes.Cut(gomod, []byte("\n"))
	fromMod, ok := strings.CutPrefix(strings.TrimSpace(string(first)), "module ")
	if !ok {
		return "", "", fmt.Errorf("%s/go.mod: the first line should be the module line", from)
	}
	// A stage's folder is solutions/NN-name or lessons/NN-name wherever the checkout is:
	// its module path ends in those two elements.
	fromTail := lastElems(filepath.ToSlash(filepath.Clean(from)), 2)
	toDir := lastElems(filepath.ToSlash(filepath.Clean(to)), 2)
	prefix, ok := strings.CutSuffix(fromMod, fromTail)
	if !ok {
		return "", "", fmt.Errorf("module path %s does not end in %s", fromMod, fromTail)
	}
	return fromMod, prefix + toDir, nil
}

func lastElems(path string, n int) string {
	parts := strings.Split(path, "/")
	return strings.Join(parts[max(0, len(parts)-n):], "/")
}

// lessonFile turns one file of the solution into the lesson's file, and returns the
// TODO blocks it found.
func lessonFile(path string, src []byte, fromMod, toMod string, done int) ([]byte, []todo, error) {
	if !strings.HasSuffix(path, ".go") {
		if bytes.Contains(src, []byte(anyMarker)) {
			return nil, nil, fmt.Errorf("%s: //lesson: markers are only understood in Go files; a file with # comments takes #lesson:", path)
		}
		out, _, blocks, err := replaceMarked(src, "#", done)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%w", path, err)
		}
		return bytes.ReplaceAll(out, []byte(fromMod), []byte(toMod)), blocks, nil
	}
	out, changed, blocks, err := replaceMarked(src, "//", done)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%w", path, err)
	}
	out, err = formatGo(path, out, changed, fromMod, toMod)
	return out, blocks, err
}

// formatGo moves a Go file to its new module path and formats it. The new module path
// may reorder an import block; where code was taken out (changed), the imports only it
// used must go too, which imports.Process does, like goimports. A file where nothing was
// taken out only needs gofmt.
func formatGo(path string, out []byte, changed bool, fromMod, toMod string) ([]byte, error) {
	out = bytes.ReplaceAll(out, []byte(fromMod+"/"), []byte(toMod+"/"))
	out = bytes.ReplaceAll(out, []byte(`"`+fromMod+`"`), []byte(`"`+toMod+`"`))
	format := func(src []byte) ([]byte, error) { return goformat.Source(src) }
	if changed {
		format = func(src []byte) ([]byte, error) {
			return imports.Process(path, src, &imports.Options{Comments: true, TabIndent: true, TabWidth: 8})
		}
	}
	formatted, err := format(out)
	if err != nil {
		return nil, fmt.Errorf("%s: the generated file does not parse: %w\n%s", path, err, out)
	}
	return formatted, nil
}

// replaceMarked replaces every marked block with its TODO and stub, in a file whose
// comments start with comment, except the blocks of tasks numbered up to done, which
// keep the solution's code. It reports whether it replaced any, and returns the blocks.
//
//	//lesson:todo(3) Scale to spec.replicas.   -> // TODO(3): Scale to spec.replicas.
//	//lesson:todo Compare len(active) ...       -> // Compare len(active) ...
//	//lesson:hint A nudge, then the API to use.    (lessons/index.json: make hint-N)
//	//lesson:test TestThatFailsUntilItIsDone       (lessons/index.json: make check-N)
//	//lesson:stub return nil                    -> return nil
//	...the solution's code...                   -> (dropped)
//	//lesson:end
func replaceMarked(src []byte, comment string, done int) ([]byte, bool, []todo, error) {
	todoMarker, stubMarker, endMarker, anyMarker := lessonMarkers(comment)
	hintMarker, testMarker := anyMarker+"hint", anyMarker+"test"
	var (
		out    bytes.Buffer
		blocks []todo
	)
	const (
		outside = iota
		inTodo
		inSolution
	)
	state, changed, solved := outside, false, false
	scanner := bufio.NewScanner(bytes.NewReader(src))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; scanner.Scan(); line++ {
		text := scanner.Text()
		trimmed := strings.TrimSpace(text)
		indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
		marker, words, _ := strings.Cut(trimmed, " ")
		words = strings.TrimSpace(words)
		if !strings.HasPrefix(marker, anyMarker) {
			marker = ""
		}
		id, numbered, err := taskNumber(marker, todoMarker)
		if err != nil {
			return nil, false, nil, fmt.Errorf("%d: %w", line, err)
		}
		switch {
		case marker == todoMarker || numbered:
			switch {
			case state == inSolution:
				return nil, false, nil, fmt.Errorf("%d: %s inside a block: close the block above with %s first", line, todoMarker, endMarker)
			case state == inTodo && numbered:
				return nil, false, nil, fmt.Errorf("%d: a block is one task: its number goes on its first line only", line)
			case state == outside:
				blocks = append(blocks, todo{ID: id, Title: words})
				solved = id > 0 && id <= done
				label := "TODO"
				if numbered {
					label = fmt.Sprintf("TODO(%d)", id)
				}
				if !solved {
					fmt.Fprintf(&out, "%s%s %s: %s\n", indent, comment, label, words)
				}
			case !solved:
				fmt.Fprintf(&out, "%s%s %s\n", indent, comment, words)
			}
			state, changed = inTodo, true
		case marker == hintMarker || marker == testMarker:
			if state != inTodo {
				return nil, false, nil, fmt.Errorf("%d: %s belongs between a block's %s lines and its code", line, marker, todoMarker)
			}
			b := &blocks[len(blocks)-1]
			if marker == hintMarker {
				b.Hints = append(b.Hints, words)
			} else {
				b.Tests = append(b.Tests, strings.Fields(words)...)
			}
		case marker == stubMarker:
			if state != inTodo {
				return nil, false, nil, fmt.Errorf("%d: %s must follow the block's %s lines", line, stubMarker, todoMarker)
			}
			if !solved {
				fmt.Fprintf(&out, "%s%s\n", indent, words)
			}
		case marker == endMarker:
			if state == outside {
				return nil, false, nil, fmt.Errorf("%d: %s without a block to close", line, endMarker)
			}
			state = outside
		case marker != "":
			return nil, false, nil, fmt.Errorf("%d: unknown marker %q (want %s(N), %s, %s, %s or %s)", line, trimmed, todoMarker, hintMarker, testMarker, stubMarker, endMarker)
		case state == outside:
			out.WriteString(text + "\n")
		default:
			state = inSolution // the solution's code: left out of the lesson, unless solved
			if solved {
				out.WriteString(text + "\n")
			}
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, false, nil, err
	}
	if state != outside {
		return nil, false, nil, fmt.Errorf(" a block is not closed: add %s", endMarker)
	}
	return out.Bytes(), changed, blocks, nil
}

// taskNumber reads the N of a //lesson:todo(N) marker.
func taskNumber(marker, todoMarker string) (int, bool, error) {
	rest, ok := strings.CutPrefix(marker, todoMarker+"(")
	if !ok {
		return 0, false, nil
	}
	digits, ok := strings.CutSuffix(rest, ")")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 1 {
		return 0, false, fmt.Errorf("%q: a task's number is a whole number from 1, as in %s(3)", marker, todoMarker)
	}
	return n, true, nil
}
