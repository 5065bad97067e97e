package stage

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// write writes files (path: content) under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// module writes a stage's module: its API types, a controller with an RBAC marker, and
// controller-gen's outputs.
func module(t *testing.T, dir string) {
	write(t, dir, map[string]string{
		"go.mod":                                 "module example.com/x\n",
		"api/v1/x_types.go":                      "package v1\n// +kubebuilder:object:root=true\ntype X struct{}\n",
		"api/v1/zz_generated.deepcopy.go":        "package v1 // generated\n",
		"internal/controller/x.go":               "package controller\n// +kubebuilder:rbac:groups=x,resources=xs,verbs=get\nfunc f() {}\n",
		"config/crd/bases/x.yaml":                "kind: CustomResourceDefinition\n",
		"config/rbac/role.yaml":                  "kind: ClusterRole\n",
		"config/rbac/kustomization.yaml":         "resources: [role.yaml]\n",
		"api/v1/applyconfiguration/api/v1/x.go":  "package v1\n",
		"api/v1/applyconfiguration/utils.go":     "package applyconfiguration\n",
		"api/applyconfiguration-notes/readme.go": "package notes\n",
	})
}

func TestDirFindsAStageByItsNumber(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"lessons/08-nodepool-x/go.mod": "", "solutions/08-nodepool-x/go.mod": ""})
	for _, n := range []string{"8", "08", "008"} {
		if dir, err := Dir(root, "lessons", n); err != nil || dir != filepath.Join(root, "lessons/08-nodepool-x") {
			t.Errorf("Dir(lessons, %s) = %s, %v", n, dir, err)
		}
	}
	if _, err := Dir(root, "lessons", "x"); err == nil || !strings.Contains(err.Error(), "lesson numbers are numbers, like 1 or 01 (got 'x')") {
		t.Errorf("Dir(x): %v", err)
	}
	if _, err := Dir(root, "solutions", "9"); err == nil || !strings.Contains(err.Error(), "there is no solutions/09-*; the lessons are: 08-nodepool-x") {
		t.Errorf("Dir(9): %v", err)
	}
}

func TestOutputsAreWhatControllerGenWrites(t *testing.T) {
	dir := t.TempDir()
	module(t, dir)
	got, err := Outputs(dir)
	want := []string{
		"api/v1/applyconfiguration/api/v1/x.go",
		"api/v1/applyconfiguration/utils.go",
		"api/v1/zz_generated.deepcopy.go",
		"config/crd/bases/x.yaml",
		"config/rbac/role.yaml",
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Outputs = %q, %v; want %q", got, err, want)
	}
}

func TestInputsChangeWithTheAPIAndMarkersOnly(t *testing.T) {
	dir := t.TempDir()
	module(t, dir)
	digest := func() string {
		t.Helper()
		d, err := Inputs(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	before := digest()
	write(t, dir, map[string]string{"internal/controller/x.go": "package controller\n// +kubebuilder:rbac:groups=x,resources=xs,verbs=get\nfunc f() { println() }\n"})
	write(t, dir, map[string]string{"api/v1/zz_generated.deepcopy.go": "package v1 // generated again\n"})
	if after := digest(); after != before {
		t.Errorf("a change of code outside the API and of a generated file changed the inputs")
	}
	write(t, dir, map[string]string{"internal/controller/x.go": "package controller\n// +kubebuilder:rbac:groups=x,resources=xs,verbs=get;list\nfunc f() {}\n"})
	marker := digest()
	if marker == before {
		t.Errorf("a new RBAC marker left the inputs as they were")
	}
	write(t, dir, map[string]string{"api/v1/x_types.go": "package v1\n// +kubebuilder:object:root=true\ntype X struct{ A int }\n"})
	if digest() == marker {
		t.Errorf("a change of the API types left the inputs as they were")
	}
	// Apply configurations name the module's packages: its path is an input then.
	withAC := digest()
	write(t, dir, map[string]string{"go.mod": "module example.com/y\n"})
	if digest() != withAC {
		t.Errorf("the module path is an input without +kubebuilder:ac:generate=true")
	}
	write(t, dir, map[string]string{"api/v1/doc.go": "// +kubebuilder:ac:generate=true\npackage v1\n"})
	ac := digest()
	write(t, dir, map[string]string{"go.mod": "module example.com/x\n"})
	if digest() == ac {
		t.Errorf("the module path is no input with +kubebuilder:ac:generate=true")
	}
}

func TestEditedSinceLeavesControllerGensOutputsOut(t *testing.T) {
	dir := t.TempDir()
	module(t, dir)
	since := time.Now().Add(time.Hour) // every file is older
	if f, err := EditedSince(dir, since); f != "" || err != nil {
		t.Fatalf("EditedSince = %q, %v; want nothing", f, err)
	}
	later := since.Add(time.Minute)
	for _, name := range []string{"config/crd/bases/x.yaml", "api/v1/zz_generated.deepcopy.go"} {
		if err := os.Chtimes(filepath.Join(dir, name), later, later); err != nil {
			t.Fatal(err)
		}
	}
	if f, err := EditedSince(dir, since); f != "" || err != nil {
		t.Fatalf("EditedSince = %q, %v after regenerating; want nothing", f, err)
	}
	if err := os.Chtimes(filepath.Join(dir, "internal/controller/x.go"), later, later); err != nil {
		t.Fatal(err)
	}
	if f, err := EditedSince(dir, since); f != "internal/controller/x.go" || err != nil {
		t.Errorf("EditedSince = %q, %v; want internal/controller/x.go", f, err)
	}
}
