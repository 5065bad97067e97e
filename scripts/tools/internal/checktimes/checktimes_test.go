package checktimes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadGivesWhatWriteWrote(t *testing.T) {
	name := filepath.Join(t.TempDir(), "times.tsv")
	times := []Time{{"02-b", 3, 11.24, 3}, {"01-a", 2.8, 2.8, 5}}
	if err := Write(name, times, Header); err != nil {
		t.Fatal(err)
	}
	got, err := Read(name)
	if err != nil {
		t.Fatal(err)
	}
	want := []Time{{"01-a", 2.8, 2.8, 5}, {"02-b", 3, 11.2, 3}} // by folder, to a tenth
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("read back %+v, want %+v", got, want)
	}
}

func TestReadNamesTheLineItCannotRead(t *testing.T) {
	name := filepath.Join(t.TempDir(), "times.tsv")
	if err := os.WriteFile(name, []byte("# a comment\n01-a\t2.8\tslow\t5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(name); err == nil || !strings.Contains(err.Error(), "times.tsv:2:") {
		t.Errorf("Read = %v, want an error naming line 2", err)
	}
}
