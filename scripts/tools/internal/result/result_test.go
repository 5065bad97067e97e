package result

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteThenReadGivesTheSameResult(t *testing.T) {
	root := t.TempDir()
	name := Path(root, "lessons/02-imoocpod-workflow")
	if want := filepath.Join(root, ".cache/check/02-imoocpod-workflow.result.json"); name != want {
		t.Fatalf("Path = %s, want %s", name, want)
	}
	for _, want := range []Result{
		{Done: 3, Total: 8, Failed: true, First: 4, Shown: true},
		{Done: 8, Total: 8},
		{Done: 0, Total: 5, Failed: true, First: 1},
	} {
		if err := Write(name, want); err != nil {
			t.Fatal(err)
		}
		got, err := Read(name)
		if err != nil || got != want {
			t.Errorf("Read = %+v, %v; want %+v", got, err, want)
		}
	}
}

func TestReadSaysANeverCheckedLessonIsNotThere(t *testing.T) {
	if _, err := Read(Path(t.TempDir(), "01-x")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want os.ErrNotExist", err)
	}
}

func TestReadNamesTheFileItCannotRead(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(name, []byte("1 3 1 2 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(name); err == nil || !strings.Contains(err.Error(), name) {
		t.Errorf("err = %v, want one naming %s", err, name)
	}
}

func TestComplete(t *testing.T) {
	for r, want := range map[Result]bool{
		{Done: 3, Total: 3}:               true,
		{Done: 3, Total: 3, Failed: true}: false, // a test of no task failed
		{Done: 2, Total: 3, First: 3}:     false,
	} {
		if r.Complete() != want {
			t.Errorf("%+v.Complete() = %v, want %v", r, !want, want)
		}
	}
}
