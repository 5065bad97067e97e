package symptoms

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func checkout(t *testing.T, table string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		Table:           "# PATTERN\tHEADING\tEXAMPLE\n\n" + table,
		Troubleshooting: "# Troubleshooting\n\n## 11. Conflict: the object has been modified\n\ntext\n\n## 12. no matches for kind\n",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const table = "the object has been modified; please apply your changes\tConflict\tOperation cannot be fulfilled: the object has been modified; please apply your changes\n" +
	"no matches for kind|the server doesn't have a resource type\tno matches for kind\terror: no matches for kind \"X\"\n"

func TestExplainNamesEachEntryOnceWithTheLineThatShowsIt(t *testing.T) {
	root := checkout(t, table)
	log := filepath.Join(root, "log")
	if err := os.WriteFile(log, []byte("INFO starting\n   E1 the object has been modified; please apply your changes\nagain: the object has been modified; please apply your changes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	k.Explain(&out, filepath.Join(root, "missing"), log)
	want := "\033[1m==>\033[0m Known problems, explained in shared/TROUBLESHOOTING.md:\n" +
		"    entry 11. Conflict: the object has been modified, for:\n      E1 the object has been modified; please apply your changes\n"
	if out.String() != want {
		t.Errorf("Explain wrote\n%q\nwant\n%q", out.String(), want)
	}
	out.Reset()
	k.Explain(&out, filepath.Join(root, Table+"x"))
	if out.String() != "" {
		t.Errorf("Explain of nothing wrote %q", out.String())
	}
}

func TestCheckFindsAPatternThatMissesItsExampleAndAHeadingWithNoEntry(t *testing.T) {
	k, err := Read(checkout(t, table))
	if err != nil || len(k.Check()) != 0 {
		t.Fatalf("a good table: %v, %q", err, k.Check())
	}
	k, err = Read(checkout(t, table+"timed out\tNo such entry\tit hangs\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(k.Check(), "\n")
	for _, want := range []string{"line 5: pattern 'timed out' does not match its example", "line 5: no entry of shared/TROUBLESHOOTING.md is titled 'No such entry'"} {
		if !strings.Contains(got, want) {
			t.Errorf("Check = %q, want %q", got, want)
		}
	}
}

func TestTheCheckoutsTableIsGood(t *testing.T) {
	k, err := Read("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	if bad := k.Check(); len(bad) > 0 {
		t.Errorf("%s:\n%s", Table, strings.Join(bad, "\n"))
	}
}
