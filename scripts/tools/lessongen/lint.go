package main

// The lint of the lessons' texts: a TODO or a hint that names a function, a method, a
// field, a package member, a file or a section of a doc must name one that the lesson's
// solution has (STYLE.md, habit 10). The texts are written by hand and the code moves
// under them; nothing else checks that they still agree.
//
// The lint knows nothing of where the texts come from: indexSolution reads a solution,
// lintText checks one text against it, and only lintRepository reads today's texts (the
// TODO comments of lessons/NN-* and the hints of lessons/index.json).

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// A solutionIndex is what a text about a solution may name.
type solutionIndex struct {
	root string // the repository's top, where docs/ is
	doc  string // the lesson's doc, for a section named without its file: docs/lesson-NN.md

	names    map[string]bool   // every identifier the Go code declares or uses
	pairs    map[string]bool   // X.Sel as the code writes it: "client.MergeFrom", "Status.Patch", "NodePoolReconciler.syncNode"
	selected map[string]bool   // every Sel of a pair: a field, a method or a package member the code uses
	imports  map[string]bool   // the import paths
	aliases  map[string]string // the import paths renamed by an alias, by alias: ctrl, metav1, webhookv1
	words    map[string]bool   // the words of the files that are not Go (YAML, Dockerfile)
	files    map[string]bool   // the files and folders, as slash paths relative to the solution
	docCode  string            // what the lesson's doc writes as code: `blockOwnerDeletion`
	docWords map[string]bool   // the words of docCode
}

// indexSolution reads the solution in dir. Its Go code gives the identifiers, without the
// tests: a hint names what the solution does, not what its tests check it with.
func indexSolution(root, dir string) (*solutionIndex, error) { return indexModule(root, dir, false) }

// indexWithTests reads the solution in dir with its tests: the texts of a test task
// name the helpers and matchers its test is written with.
func indexWithTests(root, dir string) (*solutionIndex, error) { return indexModule(root, dir, true) }

func indexModule(root, dir string, tests bool) (*solutionIndex, error) {
	idx := &solutionIndex{
		root: root, names: map[string]bool{}, pairs: map[string]bool{}, selected: map[string]bool{},
		imports: map[string]bool{}, aliases: map[string]string{}, words: map[string]bool{}, files: map[string]bool{}, docWords: map[string]bool{},
	}
	if number, _, ok := strings.Cut(filepath.Base(dir), "-"); ok {
		idx.doc = "docs/lesson-" + number + ".md"
		doc, _ := os.ReadFile(filepath.Join(root, idx.doc))
		idx.docCode = strings.Join(backquoted.FindAllString(string(doc), -1), "\n")
		for _, w := range wordPattern.FindAllString(idx.docCode, -1) {
			idx.docWords[w] = true
		}
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, file)
		if err != nil || rel == "." {
			return err
		}
		idx.files[filepath.ToSlash(rel)] = true
		name := d.Name()
		switch {
		case d.IsDir() || name == "go.sum" || !tests && strings.HasSuffix(name, "_test.go"):
			return nil
		case strings.HasSuffix(name, ".go"):
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			idx.addGo(f)
			return nil
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(src)) {
			if !strings.Contains(line, "lesson:") { // a text about the file is not the file
				for _, w := range wordPattern.FindAllString(line, -1) {
					idx.words[w] = true
				}
			}
		}
		return nil
	})
	return idx, err
}

var wordPattern = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// addGo adds the identifiers of one Go file.
func (idx *solutionIndex) addGo(f *ast.File) {
	for _, imp := range f.Imports {
		importPath := strings.Trim(imp.Path.Value, `"`)
		idx.imports[importPath] = true
		if imp.Name != nil {
			idx.aliases[imp.Name.Name] = importPath
		}
	}
	pair := func(x, sel string) {
		if x != "" {
			idx.pairs[x+"."+sel] = true
		}
		idx.selected[sel] = true
	}
	// What a package declares, as its importers name it: sidecars.ExcludedNamespaces.
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv == nil {
				pair(f.Name.Name, decl.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					pair(f.Name.Name, spec.Name.Name)
				case *ast.ValueSpec:
					for _, name := range spec.Names {
						pair(f.Name.Name, name.Name)
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			idx.names[n.Name] = true
		case *ast.SelectorExpr:
			pair(baseName(n.X), n.Sel.Name)
		case *ast.CompositeLit: // metav1.ObjectMeta{GenerateName: ...} has ObjectMeta.GenerateName
			for _, elt := range n.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if key, ok := kv.Key.(*ast.Ident); ok {
						pair(baseName(n.Type), key.Name)
					}
				}
			}
		case *ast.FuncDecl:
			if n.Recv != nil {
				pair(baseName(n.Recv.List[0].Type), n.Name.Name)
			}
		case *ast.TypeSpec:
			var fields []*ast.Field
			switch t := n.Type.(type) {
			case *ast.StructType:
				fields = t.Fields.List
			case *ast.InterfaceType:
				fields = t.Methods.List
			}
			for _, field := range fields {
				for _, name := range field.Names {
					pair(n.Name.Name, name.Name)
				}
				if field.Names == nil { // an embedded field is named after its type
					pair(n.Name.Name, baseName(field.Type))
				}
			}
		}
		return true
	})
}

// baseName is the name an expression ends in, as a text would name it: r for r,
// Status for r.Status(), Unstructured for obj.(*unstructured.Unstructured), Set for
// sets.Set[string]; "" when it has none (a literal, an operation).
func baseName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.CallExpr:
		return baseName(e.Fun)
	case *ast.IndexExpr:
		return baseName(e.X)
	case *ast.IndexListExpr:
		return baseName(e.X)
	case *ast.StarExpr:
		return baseName(e.X)
	case *ast.ParenExpr:
		return baseName(e.X)
	case *ast.CompositeLit:
		return baseName(e.Type)
	case *ast.TypeAssertExpr:
		return baseName(e.Type)
	}
	return ""
}

var (
	// A section of a doc: "Title" in docs/x.md, or "A" and "B" in docs/x.md.
	docSections = regexp.MustCompile(`"([^"]+)"((?:,? and "[^"]+"|, "[^"]+")*) in (docs/[\w./-]+\.md)\b`)
	// A section of the lesson's own doc, named without its file: see "Title", in "Title".
	lessonSection = regexp.MustCompile(`(?i:\b(?:see|in)) "([A-Z][^"]*)"`)
	quoted        = regexp.MustCompile(`"[^"]*"`)
	backquoted    = regexp.MustCompile("`[^`]*`")
	url           = regexp.MustCompile(`https?://\S+`)
	marker        = regexp.MustCompile(`\+[a-z]+:\S*`) // +kubebuilder:validation:Minimum
	// Innermost brackets: their content is read on its own, and they leave a \x01 so
	// that r.Status().Patch(ctx, obj, patch) reads as the chain r.Status\x01.Patch\x01.
	innermost = regexp.MustCompile(`[(\[{]([^()\[\]{}\x01]*)[)\]}]`)
	chain     = regexp.MustCompile(`\.?[A-Za-z_]\w*\x01*(?:\.[A-Za-z_]\w*\x01*)*`)
	version   = regexp.MustCompile(`^v\d+((alpha|beta)\d+)?$`)
)

// Where a dotted name is no Go at all.
var (
	topLevelDomains = map[string]bool{"io": true, "dev": true, "com": true, "org": true, "net": true}
	fileExtensions  = map[string]bool{"go": true, "yaml": true, "yml": true, "md": true, "json": true, "mod": true, "sum": true, "sh": true}
	objectFields    = map[string]bool{"spec": true, "status": true, "metadata": true} // spec.replicas: an API field path
)

// lintText returns the problems of one text: each identifier, file or doc section it
// names that the solution does not have.
//
// What a text names: the sections of docs in double quotes (See "The Reconcile
// skeleton" in docs/lesson-05.md), paths (config/rbac/role.yaml), backquoted words,
// dotted names (client.MergeFrom, r.Status().Patch(ctx, ...): each adjacent pair),
// mixedCase words (patchNode) and lowercase words with a digit or an underscore
// (webhookv1). What it does not: other words, which are English or kinds (ReplicaSet),
// markers (+kubebuilder:rbac), commands (make check-5), URLs, label keys and API groups
// (node-pool.workshop.dev/x, node.k8s.io), versions and numbers. API field paths
// (status.nodeCount) are checked field by field against the Go fields the code uses,
// whose JSON names they are: that covers the built-in kinds (spec.nodeName of a Pod) as
// well as the CRD.
func lintText(text string, idx *solutionIndex) []string {
	var problems []string
	report := func(format string, args ...any) {
		if p := fmt.Sprintf(format, args...); !slices.Contains(problems, p) {
			problems = append(problems, p)
		}
	}
	text = docSections.ReplaceAllStringFunc(text, func(ref string) string {
		m := docSections.FindStringSubmatch(ref)
		for _, title := range quoted.FindAllString(`"`+m[1]+`"`+m[2], -1) {
			idx.checkSection(strings.Trim(title, `"`), m[3], report)
		}
		return " "
	})
	text = lessonSection.ReplaceAllStringFunc(text, func(ref string) string {
		idx.checkSection(lessonSection.FindStringSubmatch(ref)[1], idx.doc, report)
		return " "
	})
	text = quoted.ReplaceAllString(text, " ")
	text = backquoted.ReplaceAllStringFunc(text, func(code string) string {
		code = strings.Trim(code, "`")
		switch { // a command or a piece of JSON is no name
		case chain.FindString(code) == code:
			idx.checkChain(code, true, false, report)
		case strings.Contains(code, "/") && !strings.Contains(code, " "):
			idx.checkPath(code, report)
		}
		return " "
	})
	text = url.ReplaceAllString(text, " ")
	text = marker.ReplaceAllString(text, " ")
	text = strings.ReplaceAll(text, "...", " ")
	var rest []string
	for _, field := range strings.Fields(text) {
		if p := strings.Trim(field, `()[]{},;:.'`); strings.Contains(p, "/") {
			idx.checkPath(strings.TrimSuffix(p, "'s"), report)
		} else {
			rest = append(rest, field)
		}
	}
	pieces := []string{strings.Join(rest, " ")}
	for i := 0; i < len(pieces); i++ {
		for innermost.MatchString(pieces[i]) {
			for _, m := range innermost.FindAllStringSubmatch(pieces[i], -1) {
				pieces = append(pieces, m[1])
			}
			pieces[i] = innermost.ReplaceAllString(pieces[i], "\x01")
		}
		for _, at := range chain.FindAllStringIndex(pieces[i], -1) {
			aValue := describesAValue(strings.Fields(pieces[i][:at[0]]))
			idx.checkChain(pieces[i][at[0]:at[1]], false, aValue, report)
		}
	}
	return problems
}

// describesAValue tells the words after which a pkg.Type is the type of a value the text
// describes ("takes a healthz.Checker", "NodePool's schema.GroupKind", "pointers to
// time.Duration"): the solution may use such a value without ever writing its type.
func describesAValue(before []string) bool {
	word := func(back int) string {
		if len(before) < back {
			return ""
		}
		return strings.ToLower(before[len(before)-back])
	}
	switch word(1) {
	case "a", "an", "one":
		return true
	case "to", "of":
		switch word(2) {
		case "pointer", "pointers", "slice", "slices", "map", "maps", "list", "lists":
			return true
		}
	}
	return strings.HasSuffix(word(1), "'s")
}

// checkChain checks a dotted name (r.Status().Patch()) or a single word. Backquoted, any
// word is a name; else only the words that look like one. After an article (aValue), a
// pkg.Type is the type of a value, which the lint cannot check without the package.
func (idx *solutionIndex) checkChain(c string, backquoted, aValue bool, report func(string, ...any)) {
	leadingDot := strings.HasPrefix(c, ".")
	c = strings.ReplaceAll(c, "\x01", "")
	elems := strings.Split(strings.TrimPrefix(c, "."), ".")
	last := elems[len(elems)-1]
	switch {
	case objectFields[elems[0]] && len(elems) > 1:
		for _, field := range elems[1:] {
			if !idx.hasWord(field) {
				report("%q: no field %s in the solution's code or YAML", c, field)
			}
		}
	case leadingDot: // .Child("key"): a method of something the text named before
		if unicode.IsUpper(rune(elems[0][0])) && !idx.selected[elems[0]] {
			report("%q: the solution's code uses no %s", c, elems[0])
		}
	case len(elems) == 1:
		if backquoted || looksLikeAName(c) {
			if !idx.hasWord(c) {
				report("%q: not in the solution", c)
			}
		}
	case topLevelDomains[last] || strings.Contains(c, "k8s"): // node.k8s.io, apps.workshop.dev
	case fileExtensions[last] && !backquoted:
		idx.checkFile(c, report)
	case aValue && len(elems) == 2 && unicode.IsUpper(rune(last[0])) && idx.mayBePackage(elems[0]):
	default:
		for i := range len(elems) - 1 {
			if !idx.checkPair(elems[i], elems[i+1], report) {
				break // the first missing pair is enough: r.Recorder, not also Recorder.Eventf
			}
		}
	}
}

// mayBePackage tells whether p names a package: one the code imports, or a name the code
// does not use and that looks like a package's (healthz in "takes a healthz.Checker"),
// not like an alias (webhookv1) or a variable.
func (idx *solutionIndex) mayBePackage(p string) bool {
	for importPath := range idx.imports {
		if path.Base(importPath) == p {
			return true
		}
	}
	return idx.aliases[p] != "" || !idx.names[p] && !strings.ContainsFunc(p, func(r rune) bool { return r < 'a' || r > 'z' })
}

// looksLikeAName tells an identifier from a word: patchNode, webhookv1, CGO_ENABLED.
func looksLikeAName(w string) bool {
	first := rune(w[0])
	switch {
	case strings.Contains(w, "_"):
		return true
	case !unicode.IsLower(first) || version.MatchString(w):
		return false
	}
	return strings.ContainsFunc(w, unicode.IsUpper) || strings.ContainsFunc(w, unicode.IsDigit)
}

// hasWord tells whether the solution has w, or its plural (one matchExpression of
// matchExpressions): as an identifier, as the JSON name of a Go field it uses
// (imagePullPolicy for ImagePullPolicy), in its other files, or as code in the lesson's
// doc, which defines it for the learner (blockOwnerDeletion, which the solution leaves
// to metav1.NewControllerRef).
func (idx *solutionIndex) hasWord(w string) bool {
	has := func(w string) bool {
		upper := []rune(w)
		upper[0] = unicode.ToUpper(upper[0])
		return idx.names[w] || idx.names[string(upper)] || idx.words[w] || idx.docWords[w]
	}
	return has(w) || has(w+"s")
}

// checkPair checks x.sel. A lowercase x is a package, a variable or a receiver: the code
// must write x.sel as it is. An uppercase x is a type or a field (Quantity.Add,
// DeletionTimestamp.IsZero), whose methods the code calls on values of other names
// (sum.Add): without the types, the lint can only ask that the code use sel. It tells
// whether the code has the pair.
func (idx *solutionIndex) checkPair(x, sel string, report func(string, ...any)) bool {
	if idx.pairs[x+"."+sel] || unicode.IsUpper(rune(x[0])) && idx.selected[sel] {
		return true
	}
	var others []string
	for p := range idx.pairs {
		if strings.HasSuffix(p, "."+sel) {
			others = append(others, p)
		}
	}
	slices.Sort(others)
	switch {
	case len(others) > 0:
		report("%s.%s: not in the solution's code, which has %s", x, sel, strings.Join(others, ", "))
	case !idx.names[x]:
		report("%s.%s: not in the solution's code, which has no %s", x, sel, x)
	default:
		report("%s.%s: not in the solution's code", x, sel)
	}
	return false
}

// checkPath checks a word with a slash. A path that starts with a folder of the solution
// or of the repository (config/rbac/role.yaml, docs/lesson-05.md), or names a file by its
// extension, must exist; an import path (k8s.io/utils/ptr) must be imported. Anything
// else (imoocpods/status, a label key, /metrics) is not a path of the solution.
func (idx *solutionIndex) checkPath(p string, report func(string, ...any)) {
	elems := strings.Split(p, "/")
	ext := path.Ext(p)
	switch {
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "."):
	case idx.exists(elems[0]) || ext != "" && fileExtensions[ext[1:]]:
		if !idx.exists(p) {
			report("%s: no such file in the solution or the repository", p)
		}
	case strings.Contains(elems[0], ".") && len(elems) >= 3 && !strings.ContainsAny(p, ":@"):
		if !idx.imports[p] {
			report("%s: the solution does not import it", p)
		}
	}
}

// checkFile checks a file named without its folder: go.mod, manager_metrics_patch.yaml.
func (idx *solutionIndex) checkFile(name string, report func(string, ...any)) {
	for f := range idx.files {
		if path.Base(f) == name {
			return
		}
	}
	if !idx.exists(name) {
		report("%s: no such file in the solution", name)
	}
}

func (idx *solutionIndex) exists(p string) bool {
	if idx.files[p] {
		return true
	}
	_, err := os.Stat(filepath.Join(idx.root, filepath.FromSlash(p)))
	return err == nil
}

// checkSection checks that title is a heading of the doc (a path from the repository's
// top). Backquotes in a heading or the title do not count: ### `make check-5`: the tests.
func (idx *solutionIndex) checkSection(title, doc string, report func(string, ...any)) {
	src, err := os.ReadFile(filepath.Join(idx.root, filepath.FromSlash(doc)))
	if err != nil {
		report("%s: no such doc (for the section %q)", doc, title)
		return
	}
	fenced := false
	for line := range strings.Lines(string(src)) {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		heading, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !fenced && ok && strings.HasPrefix(line, "#") &&
			strings.ReplaceAll(strings.TrimSpace(heading), "`", "") == strings.ReplaceAll(title, "`", "") {
			return
		}
	}
	report("%q: no such section in %s", title, doc)
}

// lintImports returns the problems of a text about the learner's code that lintText
// cannot see: an import alias (webhookv1 in webhookv1.SetupPodWebhookWithManager) that
// the solution has and the lesson's code does not, while neither the text nor the
// lesson's doc gives its import path. An alias is no package's name: goimports cannot
// find it, and the lesson has no import of it to copy.
func lintImports(text string, solution, lesson *solutionIndex) []string {
	var problems []string
	for _, w := range wordPattern.FindAllString(text, -1) {
		importPath, ok := solution.aliases[w]
		if !ok || lesson.aliases[w] != "" || w == path.Base(importPath) || w == "_" {
			continue
		}
		named := strings.Contains(solution.docCode, importPath)
		// The text may name the path from the module's top: internal/webhook/apps/v1.
		for _, field := range strings.Fields(text) {
			p := strings.Trim(field, `()[]{},;:.'"`)
			named = named || strings.Contains(p, "/") && strings.HasSuffix(importPath, "/"+p)
		}
		p := fmt.Sprintf("%s: an import alias (of %s) that the lesson's code does not have: say what to import", w, importPath)
		if !named && !slices.Contains(problems, p) {
			problems = append(problems, p)
		}
	}
	return problems
}

// A lintProblem is one problem of one text of a lesson.
type lintProblem struct {
	Lesson  int
	Task    int
	Where   string // "hint 2", or the TODO's file and line
	Text    string
	Problem string
}

func (p lintProblem) String() string {
	return fmt.Sprintf("lesson %02d, task %d, %s: %s\n\t%s", p.Lesson, p.Task, p.Where, p.Problem, p.Text)
}

// lintRepository lints the texts of every lesson of the repository at root against its
// solution: the TODO comments of lessons/NN-name and the hints of lessons/index.json,
// against solutions/NN-name.
func lintRepository(root string) ([]lintProblem, error) {
	lessons, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	if err != nil {
		return nil, err
	}
	var problems []lintProblem
	for _, l := range lessons {
		idx, err := indexSolution(root, filepath.Join(root, "solutions", path.Base(l.Folder)))
		if err != nil {
			return nil, err
		}
		learner, err := indexSolution(root, filepath.Join(root, l.Folder))
		if err != nil {
			return nil, err
		}
		texts, err := todoTexts(root, l.Folder)
		if err != nil {
			return nil, err
		}
		testTask := map[int]bool{}
		for _, t := range l.Todos {
			testTask[t.ID] = t.IsTest()
			for i, hint := range t.Hints {
				texts = append(texts, lintProblem{Task: t.ID, Where: fmt.Sprintf("hint %d", i+1), Text: hint})
			}
		}
		var withTests *solutionIndex
		for _, t := range texts {
			against := idx
			if testTask[t.Task] {
				if withTests == nil {
					if withTests, err = indexWithTests(root, filepath.Join(root, "solutions", path.Base(l.Folder))); err != nil {
						return nil, err
					}
				}
				against = withTests
			}
			found := lintText(t.Text, against)
			// A lesson that starts empty has no code of its own: every import is the
			// learner's to write, and a hint may name any alias of the solution.
			if !l.StartsEmpty {
				found = append(found, lintImports(t.Text, against, learner)...)
			}
			for _, p := range found {
				t.Lesson, t.Problem = l.Number, p
				problems = append(problems, t)
			}
		}
	}
	return problems, nil
}

var todoComment = regexp.MustCompile(`^\s*(//|#) TODO\((\d+)\): (.*)$`)

// todoTexts returns the TODOs of a lesson's files: the title after TODO(k): and the
// comment lines right after it, up to an empty comment line or a marker.
func todoTexts(root, folder string) ([]lintProblem, error) {
	var texts []lintProblem
	err := filepath.WalkDir(filepath.Join(root, folder), func(file string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, file)
		if err != nil {
			return err
		}
		lines := strings.Split(string(src), "\n")
		for i, line := range lines {
			m := todoComment.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			text := []string{m[3]}
			for _, next := range lines[i+1:] {
				words, ok := strings.CutPrefix(strings.TrimSpace(next), m[1])
				words = strings.TrimSpace(words)
				if !ok || words == "" || strings.HasPrefix(words, "+") {
					break
				}
				text = append(text, words)
			}
			task, _ := strconv.Atoi(m[2]) // digits, as todoComment says
			where := fmt.Sprintf("TODO at %s:%d", filepath.ToSlash(rel), i+1)
			texts = append(texts, lintProblem{Task: task, Where: where, Text: strings.Join(text, " ")})
		}
		return nil
	})
	return texts, err
}
