package main

import (
	"bytes"
	"fmt"
	"go/ast"
	goformat "go/format"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// The module paths of the generated folders: the track's module path with its last two
// elements (tracks/<name>) replaced by the folder's (solutions/NN-name, lessons/NN-name).
func (t *track) moduleOf(kind, folder string) string {
	return strings.TrimSuffix(t.module, "tracks/"+t.name) + kind + "/" + folder
}

// modulePath reads the module path of the module in dir.
func modulePath(dir string) (string, error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(gomod), "\n") {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(path), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod: no module line", dir)
}

// makeMistake applies a mistake's edits to the stage's files.
func (st *stage) makeMistake(m *mistakeSpec) error {
	for _, e := range m.Edits {
		src, ok := st.files[e.File]
		if !ok {
			return fmt.Errorf("mistake %s: stage %s has no file %s", m.Name, st.folder, e.File)
		}
		out, err := replaceLines(src, e.Find, e.Instead)
		if err != nil {
			return fmt.Errorf("mistake %s, in %s: %w", m.Name, e.File, err)
		}
		st.files[e.File] = out
		st.changed = append(st.changed, e.File)
	}
	return nil
}

// replaceLines replaces the one run of lines of src that reads find (line by line,
// leaving indentation aside) with the lines of instead, each indented like the first
// line found plus its own indentation.
func replaceLines(src []byte, find, instead string) ([]byte, error) {
	have := strings.Split(string(src), "\n")
	want := lines(find)
	var at []int
	for i := 0; i+len(want) <= len(have); i++ {
		match := true
		for j, w := range want {
			if strings.TrimSpace(have[i+j]) != strings.TrimSpace(w) {
				match = false
				break
			}
		}
		if match {
			at = append(at, i)
		}
	}
	if len(at) != 1 {
		return nil, fmt.Errorf("the lines to find are there %d times; they must be there once:\n%s", len(at), find)
	}
	i := at[0]
	indent := have[i][:len(have[i])-len(strings.TrimLeft(have[i], " \t"))]
	var repl []string
	for _, l := range lines(instead) {
		repl = append(repl, strings.TrimRight(indent+l, " \t"))
	}
	out := slices.Concat(have[:i], repl, have[i+len(want):])
	return []byte(strings.Join(out, "\n")), nil
}

// finish moves the stage to its module path and formats its Go files. The new module
// path may reorder an import block; where code was left out or put in, the imports only
// it used must go too (dropUnusedImports).
func (st *stage) finish(from, to string) error {
	for rel, src := range st.files {
		if !strings.HasSuffix(rel, ".go") {
			if rel == "go.mod" || !bytes.ContainsRune(src, 0) {
				st.files[rel] = bytes.ReplaceAll(src, []byte(from), []byte(to))
			}
			continue
		}
		src = bytes.ReplaceAll(src, []byte(from+"/"), []byte(to+"/"))
		src = bytes.ReplaceAll(src, []byte(`"`+from+`"`), []byte(`"`+to+`"`))
		var out []byte
		var err error
		if slices.Contains(st.changed, rel) {
			out, err = dropUnusedImports(rel, src)
		} else {
			out, err = goformat.Source(src)
		}
		if err != nil {
			return fmt.Errorf("%s/%s: the generated file does not parse: %w\n%s", st.folder, rel, err, src)
		}
		st.files[rel] = out
	}
	return nil
}

// dropUnusedImports removes the imports of the Go file src that nothing in it uses any
// more, and formats it as gofmt does. A stage leaves out code of the track's file, or
// puts in code the track's file has in a marker; it never needs a package the track's
// file does not import. So removing is all there is to do: what goimports would do here,
// without its search of the module cache for packages to add (half a second a file).
func dropUnusedImports(name string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	// The names a file uses a package by are the left sides of its selectors (a
	// variable's too: an import it shadows is kept, and the compiler says so).
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var unused []*ast.ImportSpec
	for _, imp := range f.Imports {
		importPath, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, err
		}
		if imp.Name != nil && (imp.Name.Name == "_" || imp.Name.Name == ".") {
			continue
		}
		if !slices.ContainsFunc(packageNames(imp, importPath), func(n string) bool { return used[n] }) {
			unused = append(unused, imp)
		}
	}
	for _, imp := range unused {
		var alias string
		if imp.Name != nil {
			alias = imp.Name.Name
		}
		importPath, _ := strconv.Unquote(imp.Path.Value)
		astutil.DeleteNamedImport(fset, f, alias, importPath)
	}
	var buf bytes.Buffer
	if err := goformat.Node(&buf, fset, f); err != nil {
		return nil, err
	}
	// Node prints what is left; Source sorts each import block, as gofmt does.
	return goformat.Source(buf.Bytes())
}

// packageNames returns the names an import may be used by: its alias, or else the last
// element of its path and, for a path that ends in a major version (k8s.io/api/core/v1),
// the element before, each up to its first character that cannot be in a name
// (gopkg.in/yaml.v3 is yaml).
var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

func packageNames(imp *ast.ImportSpec, importPath string) []string {
	if imp.Name != nil {
		return []string{imp.Name.Name}
	}
	name := func(elem string) string {
		elem = strings.TrimPrefix(elem, "go-")
		if i := strings.IndexFunc(elem, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }); i >= 0 {
			elem = elem[:i]
		}
		return elem
	}
	names := []string{name(path.Base(importPath))}
	if dir := path.Dir(importPath); dir != "." && majorVersion.MatchString(path.Base(importPath)) {
		names = append(names, name(path.Base(dir)))
	}
	return names
}

var todoLine = regexp.MustCompile(`(?m)^[ \t]*(//|#) TODO\((\d+)\): `)

// tasks returns the lesson's tasks for the index, with the file and line of each task's
// main TODO as the finished lesson has them.
func (st *stage) tasks(l *lessonSpec) ([]index.Todo, error) {
	var out []index.Todo
	for _, task := range l.Tasks {
		todo := index.Todo{ID: task.ID, Title: task.Title, Hints: task.Hints, Tests: task.Tests, File: task.File}
		for _, mu := range task.Mutants {
			todo.Bugs = append(todo.Bugs, index.Bug{Name: mu.Name, Bug: strings.TrimSpace(mu.Bug)})
		}
		out = append(out, todo)
	}
	for rel, fences := range st.fences {
		// The TODOs of a file, in order, are its fences in order.
		var ids []int
		var lineNos []int
		src := st.files[rel]
		for _, m := range todoLine.FindAllSubmatchIndex(src, -1) {
			id, err := strconv.Atoi(string(src[m[4]:m[5]]))
			if err != nil {
				return nil, fmt.Errorf("%s/%s: TODO(%s): the task's number: %w", st.folder, rel, src[m[4]:m[5]], err)
			}
			ids = append(ids, id)
			lineNos = append(lineNos, bytes.Count(src[:m[0]], []byte("\n"))+1)
		}
		if len(ids) != len(fences) {
			return nil, fmt.Errorf("%s/%s: %d TODO lines for %d tasks' places", st.folder, rel, len(ids), len(fences))
		}
		for i, f := range fences {
			if f.Place == "" {
				out[f.Task-1].File = rel
				out[f.Task-1].Line = lineNos[i]
			}
		}
	}
	defined := testNames(st.files)
	for _, t := range out {
		for _, name := range t.Tests {
			if !defined[name] {
				return nil, fmt.Errorf("lesson %s, task %d: tests: %s is not a test of the stage (no _test.go file defines it)", st.folder, t.ID, name)
			}
		}
	}
	return out, nil
}

var testFunc = regexp.MustCompile(`(?m)^func (?:(Test\w*)\(\w+ \*testing\.T\)|(Fuzz\w*)\(\w+ \*testing\.F\))`)

// testNames returns the top-level tests of a stage, with its fuzz targets: go test runs
// a target's corpus as a test of that name.
func testNames(files map[string][]byte) map[string]bool {
	names := map[string]bool{}
	for rel, src := range files {
		if strings.HasSuffix(rel, "_test.go") {
			for _, m := range testFunc.FindAllSubmatch(src, -1) {
				names[string(m[1])+string(m[2])] = true
			}
		}
	}
	return names
}

// writeTo replaces the folder dir with the stage's files, with the modes of the source's.
func (st *stage) writeTo(dir string, modes func(rel string) os.FileMode) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	names := make([]string, 0, len(st.files))
	for rel := range st.files {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, st.files[rel], modes(rel)); err != nil {
			return err
		}
	}
	return nil
}

// lessonTitle reads a lesson's title from the first line of its page, docs/lesson-NN.md
// ("# Lesson 05: The title").
func lessonTitle(root string, n int) (string, error) {
	path := filepath.Join(root, lessonPage(n))
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(string(src), "\n")
	_, title, ok := strings.Cut(first, ": ")
	if !ok {
		return "", fmt.Errorf("%s: the first line should be \"# Lesson %02d: Title\"", path, n)
	}
	return strings.TrimSpace(title), nil
}
