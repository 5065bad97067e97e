package stage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeGenerator writes a CRD that names its run, and counts its runs.
type fakeGenerator struct{ runs int }

func (g *fakeGenerator) generate(dir string) error {
	g.runs++
	outputs, err := Outputs(dir)
	if err != nil {
		return err
	}
	for _, rel := range outputs {
		if err := os.Remove(filepath.Join(dir, rel)); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, "config/crd/bases/x.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.Repeat("generated\n", g.runs)), 0o644)
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestGenerateLikeGeneratesOnlyInputsNeverSeen(t *testing.T) {
	g := &fakeGenerator{}
	c := Cache{Dir: t.TempDir(), Key: "gen1", Generate: g.generate, MaxAge: 30 * 24 * time.Hour}
	a, b := t.TempDir(), t.TempDir()
	module(t, a)
	module(t, b)

	if err := c.GenerateLike(a, ""); err != nil || g.runs != 1 {
		t.Fatalf("first inputs: %v, %d runs; want 1", err, g.runs)
	}
	// The same inputs in another module: what was kept, no run.
	if err := c.GenerateLike(b, ""); err != nil || g.runs != 1 {
		t.Fatalf("same inputs again: %v, %d runs; want 1", err, g.runs)
	}
	if got := read(t, filepath.Join(b, "config/crd/bases/x.yaml")); got != "generated\n" {
		t.Errorf("b's CRD = %q, want the kept one", got)
	}
	// What the kept outputs do not have goes, and no empty folder stays.
	for _, gone := range []string{"config/rbac/role.yaml", "api/v1/zz_generated.deepcopy.go", "api/v1/applyconfiguration"} {
		if _, err := os.Stat(filepath.Join(b, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", gone, err)
		}
	}
	if got := read(t, filepath.Join(b, "config/rbac/kustomization.yaml")); got == "" {
		t.Errorf("a file of the learner's went")
	}

	// New inputs: a run.
	write(t, b, map[string]string{"api/v1/x_types.go": "package v1\ntype X struct{ B int }\n"})
	if err := c.GenerateLike(b, a); err != nil || g.runs != 2 {
		t.Fatalf("new inputs: %v, %d runs; want 2", err, g.runs)
	}
	if got := read(t, filepath.Join(b, "config/crd/bases/x.yaml")); got != "generated\ngenerated\n" {
		t.Errorf("b's CRD = %q, want the second run's", got)
	}
	// Another key (generators changed): a run, even for inputs seen before.
	c.Key = "gen2"
	if err := c.GenerateLike(a, ""); err != nil || g.runs != 3 {
		t.Fatalf("new generators: %v, %d runs; want 3", err, g.runs)
	}
}

func TestGenerateLikeCopiesARefWithTheSameInputs(t *testing.T) {
	g := &fakeGenerator{}
	c := Cache{Dir: t.TempDir(), Key: "k", Generate: g.generate}
	lesson, solution := t.TempDir(), t.TempDir()
	module(t, lesson)
	module(t, solution)
	write(t, solution, map[string]string{"config/rbac/role.yaml": "the solution's role\n"})
	write(t, lesson, map[string]string{"config/rbac/role.yaml": "stale\n"})
	if err := c.GenerateLike(lesson, solution); err != nil || g.runs != 0 {
		t.Fatalf("%v, %d runs; want none", err, g.runs)
	}
	if got := read(t, filepath.Join(lesson, "config/rbac/role.yaml")); got != "the solution's role\n" {
		t.Errorf("role = %q, want the solution's", got)
	}
	if entries, _ := os.ReadDir(c.Dir); len(entries) != 0 {
		t.Errorf("the cache holds %d entries, want none: nothing was generated", len(entries))
	}
}

func TestGenerateLikePrunesWhatNoCheckoutUsedFor30Days(t *testing.T) {
	g := &fakeGenerator{}
	c := Cache{Dir: t.TempDir(), Key: "new", Generate: g.generate, MaxAge: 30 * 24 * time.Hour}
	old := filepath.Join(c.Dir, "old", "0123456789abcdef")
	used := filepath.Join(c.Dir, "old", "fedcba9876543210")
	write(t, old, map[string]string{"config/rbac/role.yaml": "x"})
	write(t, used, map[string]string{"config/rbac/role.yaml": "x"})
	long := time.Now().Add(-31 * 24 * time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	module(t, dir)
	if err := c.GenerateLike(dir, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("outputs unused for 31 days are still kept: %v", err)
	}
	if _, err := os.Stat(used); err != nil {
		t.Errorf("outputs used today went: %v", err)
	}
}
