package main

import (
	"bufio"
	"bytes"
	"fmt"
	goformat "go/format"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/imports"
)

// The lesson markers of Go files. YAML files, Dockerfiles and other files with #
// comments use the same words after # (#lesson:todo, #lesson:stub, #lesson:end), and
// their TODOs become # TODO: comments.
const (
	todoMarker = "//lesson:todo"
	stubMarker = "//lesson:stub"
	endMarker  = "//lesson:end"
	anyMarker  = "//lesson:"
)

// lessonMarkers returns the todo, stub and end markers, and their common prefix, for
// files whose comments start with comment (// or #).
func lessonMarkers(comment string) (todo, stub, end, prefix string) {
	prefix = comment + "lesson:"
	return prefix + "todo", prefix + "stub", prefix + "end", prefix
}

// generate writes the lesson for the solution in from to the folder to, which it
// empties first.
func generate(from, to string) error {
	fromMod, toMod, err := modulePaths(from, to)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(to); err != nil {
		return err
	}
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
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
		out, err := lessonFile(path, src, fromMod, toMod)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, out, info.Mode().Perm())
	})
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
	fromDir := filepath.ToSlash(filepath.Clean(from))
	toDir := filepath.ToSlash(filepath.Clean(to))
	prefix, ok := strings.CutSuffix(fromMod, fromDir)
	if !ok {
		// Called with absolute or odd paths: match on the last two elements.
		fromTail := lastElems(fromDir, 2)
		prefix, ok = strings.CutSuffix(fromMod, fromTail)
		if !ok {
			return "", "", fmt.Errorf("module path %s does not end in %s", fromMod, fromTail)
		}
		toDir = lastElems(toDir, 2)
	}
	return fromMod, prefix + toDir, nil
}

func lastElems(path string, n int) string {
	parts := strings.Split(path, "/")
	return strings.Join(parts[max(0, len(parts)-n):], "/")
}

// lessonFile turns one file of the solution into the lesson's file.
func lessonFile(path string, src []byte, fromMod, toMod string) ([]byte, error) {
	if !strings.HasSuffix(path, ".go") {
		if bytes.Contains(src, []byte(anyMarker)) {
			return nil, fmt.Errorf("%s: //lesson: markers are only understood in Go files; a file with # comments takes #lesson:", path)
		}
		out, _, err := replaceMarked(src, "#")
		if err != nil {
			return nil, fmt.Errorf("%s:%w", path, err)
		}
		return bytes.ReplaceAll(out, []byte(fromMod), []byte(toMod)), nil
	}
	out, changed, err := replaceMarked(src, "//")
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return formatGo(path, out, changed, fromMod, toMod)
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
// comments start with comment. It reports whether it replaced any.
func replaceMarked(src []byte, comment string) ([]byte, bool, error) {
	todoMarker, stubMarker, endMarker, anyMarker := lessonMarkers(comment)
	var out bytes.Buffer
	const (
		outside = iota
		inTodo
		inSolution
	)
	state, changed := outside, false
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
		switch {
		case marker == todoMarker:
			if state == inSolution {
				return nil, false, fmt.Errorf("%d: %s inside a block: close the block above with %s first", line, todoMarker, endMarker)
			}
			if state == outside {
				fmt.Fprintf(&out, "%s%s TODO: %s\n", indent, comment, words)
			} else {
				fmt.Fprintf(&out, "%s%s %s\n", indent, comment, words)
			}
			state, changed = inTodo, true
		case marker == stubMarker:
			if state != inTodo {
				return nil, false, fmt.Errorf("%d: %s must follow the block's %s lines", line, stubMarker, todoMarker)
			}
			fmt.Fprintf(&out, "%s%s\n", indent, words)
		case marker == endMarker:
			if state == outside {
				return nil, false, fmt.Errorf("%d: %s without a block to close", line, endMarker)
			}
			state = outside
		case marker != "":
			return nil, false, fmt.Errorf("%d: unknown marker %q (want %s, %s or %s)", line, trimmed, todoMarker, stubMarker, endMarker)
		case state == outside:
			out.WriteString(text + "\n")
		default:
			state = inSolution // the solution's code: left out of the lesson
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, false, err
	}
	if state != outside {
		return nil, false, fmt.Errorf(" a block is not closed: add %s", endMarker)
	}
	return out.Bytes(), changed, nil
}
