package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// A lesson page names code in backquotes: `syncNode`, `r.APIReader`, `nodepool_status.go`.
// Each must be something the learner can find: in the lesson's solution, in shared/, in
// another lesson's solution (a page compares with earlier lessons), or, for pkg.Name, in
// a package the workshop imports (a page names client-go's or controller-runtime's API
// beside the code that uses it). A name none of them has is a name that drifted: the
// code was renamed and the page was not.

// A backquoted name that is a link's text: [`name`](target).
var linkedCode = regexp.MustCompile("\\[`[^`]*`\\]\\([^)]*\\)")

// Spans that are not code: an HTTP verb or another word in capitals (PATCH), a host
// name (host.docker.internal), a key of a Secret (tls.crt).
var notCode = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$|\.(internal|local|crt|key|pem)$`)

// A file a page names by its name alone: `mydaemonset_plan.go`, `go.mod`.
var pageFileName = regexp.MustCompile(`^[\w.-]+\.(go|yaml|yml|mod|sum|json|md|sh)$`)

// pageProblems lints the backquoted names of every lesson page, as docs (root/docs)
// holds them.
func pageProblems(root, docs string) ([]string, error) {
	lessons, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	if err != nil {
		return nil, err
	}
	shared := filepath.Join(root, "shared")
	// Every solution and shared/, as one index: what the workshop's code has anywhere.
	all, err := indexSolution(root, shared)
	if err != nil {
		return nil, err
	}
	own := map[int]*solutionIndex{}
	for _, l := range lessons {
		dir := filepath.Join(root, "solutions", path.Base(l.Folder))
		idx, err := indexSolution(root, dir)
		if err != nil {
			return nil, err
		}
		if err := addGoFiles(idx, shared); err != nil {
			return nil, err
		}
		idx.docCode, idx.docWords = "", map[string]bool{} // the page does not vouch for itself
		own[l.Number] = idx
		if err := addGoFiles(all, dir); err != nil {
			return nil, err
		}
		for f := range idx.files {
			all.files[f] = true
		}
	}
	all.docCode, all.docWords = "", map[string]bool{}
	// The solutions' tests count (a page names their helpers: the tests' setNodeReady);
	// the maintainers' tools' tests do not (this lint's own test names what no code has).
	corpus, err := wordsOf(wordFiles{tests: true}, filepath.Join(root, "solutions"), shared)
	if err != nil {
		return nil, err
	}
	tools, err := wordsOf(wordFiles{}, filepath.Join(root, "scripts"))
	if err != nil {
		return nil, err
	}
	maps.Copy(corpus, tools)
	// The libraries the workshop pins: a page names their API beside the code that uses
	// it (mgr.GetEventRecorderFor, which the code replaced by GetEventRecorder).
	libraries, libraryDirs, err := libraryWords(shared)
	if err != nil {
		return nil, err
	}

	type unresolved struct{ page, span, problem string }
	var left []unresolved
	for _, l := range lessons {
		page := lessonPage(l.Number)
		src, err := os.ReadFile(filepath.Join(docs, filepath.Base(page)))
		if err != nil {
			return nil, err
		}
		for _, span := range pageSpans(string(src)) {
			code := strings.Trim(span, "`")
			if notCode.MatchString(code) || isLibraryPackage(code, libraryDirs) {
				continue
			}
			if pageFileName.MatchString(code) {
				if !hasFile(all, code) && !own[l.Number].exists(code) {
					left = append(left, unresolved{page, code, fmt.Sprintf("%s: no such file in any solution", code)})
				}
				continue
			}
			code = strings.TrimSuffix(code, "/")
			if !strings.Contains(code, ".") && wordPattern.FindString(code) == code {
				// One word: a test (the page's test names are checked on their own), or
				// a name, a reason or a field that any file of the workshop's code has.
				if !strings.HasPrefix(code, "Test") && !strings.HasPrefix(code, "Fuzz") && !corpus[code] && !libraries[code] {
					left = append(left, unresolved{page, code, "not in the code of any solution or of shared/"})
				}
				continue
			}
			problems := lintText("`"+code+"`", own[l.Number])
			elems := strings.Split(strings.TrimSuffix(code, "()"), ".")
			if last := elems[len(elems)-1]; len(elems) > 1 && libraries[last] && !strings.Contains(code, "/") {
				continue // a member of the libraries' API
			}
			if len(problems) > 0 && len(lintText("`"+code+"`", all)) > 0 {
				left = append(left, unresolved{page, code, problems[0]})
			}
		}
	}
	// What is left may be a package's API: pkg.Name, where the workshop imports pkg.
	exported, err := packageMembers(root, all, func(yield func(string) bool) {
		for _, u := range left {
			if !yield(u.span) {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, u := range left {
		if exported[u.span] {
			continue
		}
		problems = append(problems, fmt.Sprintf("%s: `%s`: %s", u.page, u.span, u.problem))
	}
	slices.Sort(problems)
	return slices.Compact(problems), nil
}

// pageSpans returns the backquoted spans of a page's prose, outside fenced code blocks
// and the generated task list (the manifest's texts, which lint checks on their own).
func pageSpans(src string) []string {
	var spans []string
	inCode, inTasks := false, false
	for line := range strings.Lines(src) {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inCode = !inCode
			continue
		case strings.HasPrefix(trimmed, "<!-- The task list:"):
			inTasks = true
		case trimmed == taskListEnd:
			inTasks = false
		}
		if !inCode && !inTasks {
			// A name linked to its source ([`slowStartBatch`](https://...)) is one the
			// reader can follow: the link vouches for it.
			line = linkedCode.ReplaceAllString(line, " ")
			spans = append(spans, backquoted.FindAllString(line, -1)...)
		}
	}
	return spans
}

// addGoFiles adds the identifiers of the Go files under dir (not the tests) to idx.
func addGoFiles(idx *solutionIndex, dir string) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		idx.addGo(f)
		return nil
	})
}

// libraryWords returns the words of the Go code of the libraries the workshop pins, as
// the module cache holds them for shared/'s go.mod.
// It also returns the folder of each library, by module path.
func libraryWords(shared string) (map[string]bool, map[string]string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}", "sigs.k8s.io/controller-runtime", "k8s.io/client-go",
		"k8s.io/api", "k8s.io/apimachinery", "k8s.io/apiextensions-apiserver")
	cmd.Dir = shared
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list of the pinned libraries: %w", err)
	}
	dirs := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if module, dir, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			dirs[module] = dir
		}
	}
	words, err := wordsOf(wordFiles{goOnly: true}, slices.Collect(maps.Values(dirs))...)
	return words, dirs, err
}

// isLibraryPackage tells whether code is the import path of a package of the pinned
// libraries (k8s.io/client-go/tools/leaderelection).
func isLibraryPackage(code string, dirs map[string]string) bool {
	for module, dir := range dirs {
		if rest, ok := strings.CutPrefix(code, module+"/"); ok {
			info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rest)))
			return err == nil && info.IsDir()
		}
	}
	return false
}

// wordFiles says which files wordsOf reads: with tests, the _test.go files too; with
// goOnly, the Go files alone.
type wordFiles struct{ tests, goOnly bool }

// wordsOf returns every word of the files under dirs: identifiers, strings, YAML keys.
func wordsOf(which wordFiles, dirs ...string) (map[string]bool, error) {
	words := map[string]bool{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if !which.tests && strings.HasSuffix(file, "_test.go") || which.goOnly && !strings.HasSuffix(file, ".go") {
				return nil
			}
			src, err := os.ReadFile(file)
			if err != nil || bytes.IndexByte(src, 0) >= 0 {
				return err
			}
			for _, w := range wordPattern.FindAll(src, -1) {
				words[string(w)] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return words, nil
}

func hasFile(idx *solutionIndex, name string) bool {
	for f := range idx.files {
		if path.Base(f) == name {
			return true
		}
	}
	return false
}

// packageMembers tells which of spans, each pkg.Name, name a member of a package the
// workshop imports (by its alias or its last element): a function, type, variable or
// constant of the package, or a method or field of one of its types. The packages are
// read from where go list finds them, the workspace's module cache.
func packageMembers(root string, all *solutionIndex, spans func(func(string) bool)) (map[string]bool, error) {
	paths := map[string][]string{} // import path -> the spans that name it
	for span := range spans {
		pkg, _, ok := strings.Cut(span, ".")
		if !ok {
			continue
		}
		importPath := all.aliases[pkg]
		if importPath == "" {
			for p := range all.imports {
				if path.Base(p) == pkg {
					importPath = p
				}
			}
		}
		if importPath != "" {
			paths[importPath] = append(paths[importPath], span)
		}
	}
	found := map[string]bool{}
	if len(paths) == 0 {
		return found, nil
	}
	args := append([]string{"list", "-find", "-e", "-f", "{{.ImportPath}}\t{{.Dir}}"}, slices.Sorted(maps.Keys(paths))...)
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Join(root, "shared")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list of the packages the pages name: %w", err)
	}
	scanner := bufio.NewScanner(bytes.NewReader(out))
	for scanner.Scan() {
		importPath, dir, _ := strings.Cut(scanner.Text(), "\t")
		if dir == "" {
			continue
		}
		members, err := goMembers(dir)
		if err != nil {
			return nil, err
		}
		for _, span := range paths[importPath] {
			elems := strings.Split(strings.TrimSuffix(span, "()"), ".")
			ok := members[elems[1]]
			for _, e := range elems[2:] { // pkg.Type.Method
				ok = ok && members[elems[1]+"."+strings.TrimSuffix(e, "()")]
			}
			found[span] = ok
		}
	}
	return found, scanner.Err()
}

// goMembers reads the package in dir: its top-level names, and Type.Member for the
// methods and fields of its types.
func goMembers(dir string) (map[string]bool, error) {
	members := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					members[decl.Name.Name] = true
				} else {
					members[baseName(decl.Recv.List[0].Type)+"."+decl.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						members[spec.Name.Name] = true
						var fields []*ast.Field
						switch t := spec.Type.(type) {
						case *ast.StructType:
							fields = t.Fields.List
						case *ast.InterfaceType:
							fields = t.Methods.List
						}
						for _, field := range fields {
							for _, n := range field.Names {
								members[spec.Name.Name+"."+n.Name] = true
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							members[n.Name] = true
						}
					}
				}
			}
		}
	}
	return members, nil
}
