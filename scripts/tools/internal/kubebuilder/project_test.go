package kubebuilder

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the top of the checkout, from this package's folder.
const root = "../../../.."

// withoutProject are the stages that have no PROJECT, each with why.
var withoutProject = map[string]string{
	"12-clientgo": "built on client-go alone, where kubebuilder's commands have nothing to add (tracks/clientgo/lessons.yaml)",
}

// stages returns every generated module: lessons/NN-name and solutions/NN-name.
func stages(t *testing.T) []string {
	t.Helper()
	var dirs []string
	for _, kind := range []string{"lessons", "solutions"} {
		matches, err := filepath.Glob(filepath.Join(root, kind, "[0-9][0-9]-*", "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range matches {
			dirs = append(dirs, filepath.Dir(m))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no lessons/NN-name or solutions/NN-name module found")
	}
	return dirs
}

// rel names a stage's folder as the repository does (solutions/03-mydaemonset).
func rel(dir string) string {
	r, _ := filepath.Rel(root, dir)
	return filepath.ToSlash(r)
}

// An apiKind is a kind a stage's api/ declares: a type marked
// +kubebuilder:object:root=true that is not a list.
type apiKind struct {
	group, version, kind, path string
	cluster                    bool // +kubebuilder:resource:scope=Cluster
	hub                        bool // the package declares (*Kind).Hub(): the conversion hub
}

var groupName = regexp.MustCompile(`(?m)^\s*\+groupName=(\S+)\s*$`)

// apiKinds parses the Go files under the stage's api/ and returns the kinds they declare.
func apiKinds(t *testing.T, dir, module string) []apiKind {
	t.Helper()
	byPackage := map[string][]parsedFile{}
	err := filepath.WalkDir(filepath.Join(dir, "api"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		byPackage[filepath.Dir(path)] = append(byPackage[filepath.Dir(path)], parsedFile{f, fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []apiKind
	for pkg, files := range byPackage {
		var group string
		hubs := map[string]bool{}
		var found []apiKind
		for _, pf := range files {
			f := pf.file
			for _, c := range f.Comments {
				if m := groupName.FindStringSubmatch(c.Text()); m != nil {
					group = m[1]
				}
			}
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Name.Name == "Hub" && d.Recv != nil && len(d.Recv.List) == 1 {
						if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
							if id, ok := star.X.(*ast.Ident); ok {
								hubs[id.Name] = true
							}
						}
					}
				case *ast.GenDecl:
					if d.Tok != token.TYPE {
						continue
					}
					doc := markersOf(pf, d)
					for _, spec := range d.Specs {
						name := spec.(*ast.TypeSpec).Name.Name
						if !strings.Contains(doc, "+kubebuilder:object:root=true") || strings.HasSuffix(name, "List") {
							continue
						}
						relPkg, _ := filepath.Rel(dir, pkg)
						found = append(found, apiKind{
							version: filepath.Base(pkg),
							kind:    name,
							path:    module + "/" + filepath.ToSlash(relPkg),
							cluster: strings.Contains(doc, "scope=Cluster"),
						})
					}
				}
			}
		}
		for _, k := range found {
			if group == "" {
				t.Errorf("%s: %s declares %s but no +groupName", rel(dir), k.path, k.kind)
			}
			k.group = group
			k.hub = hubs[k.kind]
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// A parsedFile is a Go file of the stage with the positions of its lines.
type parsedFile struct {
	file *ast.File
	fset *token.FileSet
}

// markersOf returns the comments that controller-gen reads as a type declaration's
// markers: its doc comment, and the comment group one blank line above it, where
// kubebuilder's layout keeps them.
func markersOf(pf parsedFile, d *ast.GenDecl) string {
	var text string
	start := d.Pos()
	if d.Doc != nil {
		text = d.Doc.Text()
		start = d.Doc.Pos()
	}
	line := pf.fset.Position(start).Line
	for _, c := range pf.file.Comments {
		if pf.fset.Position(c.End()).Line == line-2 {
			text += c.Text()
		}
	}
	return text
}

// A webhookMarker is a +kubebuilder:webhook marker of the stage's code.
type webhookMarker struct {
	file                      string
	group, resource, versions string
	mutating                  bool
}

var webhookLine = regexp.MustCompile(`(?m)^\s*// \+kubebuilder:webhook:(.*)$`)

// webhookMarkers returns the +kubebuilder:webhook markers of the stage's Go files.
func webhookMarkers(t *testing.T, dir string) []webhookMarker {
	t.Helper()
	var markers []webhookMarker
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range webhookLine.FindAllStringSubmatch(string(src), -1) {
			w := webhookMarker{file: rel(path)}
			for _, field := range strings.Split(m[1], ",") {
				key, value, _ := strings.Cut(field, "=")
				value = strings.Trim(value, `"`)
				switch key {
				case "mutating":
					w.mutating = value == "true"
				case "groups":
					w.group = value
				case "resources":
					w.resource = value
				case "versions":
					w.versions = value
				}
			}
			markers = append(markers, w)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return markers
}

// Every lesson and solution but those withoutProject carries a PROJECT that kubebuilder
// reads as this stage: the module's path as its repo, the multi-group layout, and each
// kind its api/ declares, in its group, version, package and scope, and no other.
func TestEveryStagesProjectListsTheKindsOfItsAPI(t *testing.T) {
	for _, dir := range stages(t) {
		name := filepath.Base(dir)
		_, err := os.Stat(filepath.Join(dir, "PROJECT"))
		if why, ok := withoutProject[name]; ok {
			if err == nil {
				t.Errorf("%s has a PROJECT, but none is expected: %s", rel(dir), why)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s has no PROJECT: kubebuilder's commands cannot work in it (tracks/<track>/PROJECT, then make generate)", rel(dir))
			continue
		}
		p, err := readProject(filepath.Join(dir, "PROJECT"))
		if err != nil {
			t.Error(err)
			continue
		}
		module := modulePath(t, dir)
		kinds := apiKinds(t, dir, module)
		// The multi-group layout keeps a kind's types in api/<group>/<version>; a project
		// that kubebuilder init made without it (the capstone), in api/<version>.
		multiGroup := !slices.ContainsFunc(kinds, func(k apiKind) bool { return strings.HasSuffix(k.path, "/api/"+k.version) })
		if p.Version != "3" || p.Repo != module || p.MultiGroup != multiGroup || !slices.Equal(p.Layout, []string{"go.kubebuilder.io/v4"}) || p.Domain != "workshop.dev" || p.ProjectName == "" {
			t.Errorf("%s/PROJECT: version %q, repo %q, multigroup %v, layout %q, domain %q, projectName %q; want version \"3\", repo %q (go.mod's module), multigroup %v (its api/ folders), layout [go.kubebuilder.io/v4], domain workshop.dev and a projectName",
				rel(dir), p.Version, p.Repo, p.MultiGroup, p.Layout, p.Domain, p.ProjectName, module, multiGroup)
		}
		for _, k := range kinds {
			i := slices.IndexFunc(p.Resources, func(r resource) bool {
				return r.Kind == k.kind && r.Version == k.version && p.group(r) == k.group
			})
			if i < 0 {
				t.Errorf("%s/PROJECT lists no resource for %s %s/%s, which %s declares", rel(dir), k.kind, k.group, k.version, strings.TrimPrefix(k.path, module+"/"))
				continue
			}
			r := p.Resources[i]
			switch {
			case r.Path != k.path:
				t.Errorf("%s/PROJECT: %s %s: path %q, want %q", rel(dir), k.kind, k.version, r.Path, k.path)
			case r.API == nil || r.API.CRDVersion != "v1":
				t.Errorf("%s/PROJECT: %s %s: want api.crdVersion v1, kubebuilder's record that the project serves it as a CRD", rel(dir), k.kind, k.version)
			case r.API.Namespaced == k.cluster:
				t.Errorf("%s/PROJECT: %s %s: api.namespaced %v, but its type's +kubebuilder:resource marker makes it %s", rel(dir), k.kind, k.version, r.API.Namespaced, map[bool]string{true: "cluster-scoped", false: "namespaced"}[k.cluster])
			}
		}
		for _, r := range p.Resources {
			if r.Core {
				continue
			}
			if !slices.ContainsFunc(kinds, func(k apiKind) bool {
				return r.Kind == k.kind && r.Version == k.version && p.group(r) == k.group
			}) {
				t.Errorf("%s/PROJECT lists %s %s/%s, which its api/ does not declare", rel(dir), r.Kind, p.group(r), r.Version)
			}
		}
	}
}

// A solution's PROJECT records exactly the webhooks its code serves: a defaulting one for
// each mutating +kubebuilder:webhook marker, a validating one for each other, and a
// conversion one for the hub version of a kind (the one with a Hub method). A lesson's
// PROJECT is its solution's: the stage's layout, whatever tasks are left.
func TestEveryStagesProjectListsItsWebhooks(t *testing.T) {
	for _, dir := range stages(t) {
		name := filepath.Base(dir)
		if _, ok := withoutProject[name]; ok {
			continue
		}
		p, err := readProject(filepath.Join(dir, "PROJECT"))
		if err != nil {
			t.Error(err)
			continue
		}
		if strings.HasPrefix(rel(dir), "lessons/") {
			solution := filepath.Join(root, "solutions", name)
			s, err := readProject(filepath.Join(solution, "PROJECT"))
			if err != nil {
				t.Error(err)
				continue
			}
			s.Repo, s.Resources = p.Repo, slices.Clone(s.Resources)
			for i := range s.Resources {
				s.Resources[i].Path = strings.Replace(s.Resources[i].Path, modulePath(t, solution), p.Repo, 1)
			}
			if !equalProjects(p, s) {
				t.Errorf("%s/PROJECT differs from solutions/%s/PROJECT in more than the module path", rel(dir), name)
			}
			continue
		}
		markers := webhookMarkers(t, dir)
		kinds := apiKinds(t, dir, p.Repo)
		for _, r := range p.Resources {
			plural := plural(r)
			served := func(mutating bool) bool {
				return slices.ContainsFunc(markers, func(w webhookMarker) bool {
					return w.mutating == mutating && w.group == p.group(r) && w.resource == plural && slices.Contains(strings.Split(w.versions, ";"), r.Version)
				})
			}
			hub := slices.ContainsFunc(kinds, func(k apiKind) bool {
				return k.hub && k.kind == r.Kind && k.version == r.Version && k.group == p.group(r)
			})
			var defaulting, validation, conversion bool
			if r.Webhooks != nil {
				defaulting, validation, conversion = r.Webhooks.Defaulting, r.Webhooks.Validation, r.Webhooks.Conversion
			}
			if defaulting != served(true) || validation != served(false) || conversion != hub {
				t.Errorf("%s/PROJECT: %s %s: webhooks defaulting %v, validation %v, conversion %v; the code serves defaulting %v, validation %v, conversion %v (a mutating marker, a validating marker, a Hub method)",
					rel(dir), r.Kind, r.Version, defaulting, validation, conversion, served(true), served(false), hub)
			}
		}
		for _, w := range markers {
			if !slices.ContainsFunc(p.Resources, func(r resource) bool {
				return p.group(r) == w.group && plural(r) == w.resource && slices.Contains(strings.Split(w.versions, ";"), r.Version) && r.Webhooks != nil
			}) {
				t.Errorf("%s/PROJECT records no webhook for the marker of %s (group %q, %s, versions %s)", rel(dir), w.file, w.group, w.resource, w.versions)
			}
		}
	}
}

// plural is the resource's plural as kubebuilder writes it into a webhook marker: its
// own, or its kind's in lower case with an s, or "ies" for a "y" after a consonant
// (configmapcopies), which is right for the workshop's kinds.
func plural(r resource) string {
	if r.Plural != "" {
		return r.Plural
	}
	kind := strings.ToLower(r.Kind)
	if n := len(kind); n > 1 && kind[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(kind[n-2])) {
		return kind[:n-1] + "ies"
	}
	return kind + "s"
}

// equalProjects says whether two PROJECTs record the same.
func equalProjects(a, b *project) bool {
	ay, _ := yamlOf(a)
	by, _ := yamlOf(b)
	return ay == by
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)`)

// modulePath reads the module path of the module in dir.
func modulePath(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := moduleLine.FindSubmatch(src)
	if m == nil {
		t.Fatalf("%s/go.mod: no module line", rel(dir))
	}
	return string(m[1])
}
