package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A track of stages 5 and 6 with a mistake in each.
const mistakeSource = `package controller

import (
	"errors"
	"fmt"
)

func reconcile(n int) (int, error) {
	//mistake:no-check refuses a negative n
	if n < 0 {
		return 0, errors.New("negative")
	}
	//mistake:end
	//stage:6
	//mistake:off-by-one says 2n+1
	status := 2*n + 1
	//mistake:instead status := 2 * n
	//mistake:end
	fmt.Println(status)
	//stage:end
	return n, nil
}
`

func TestWithoutAMistakeOnlyTheMarkersGo(t *testing.T) {
	got, _, err := stageFile("c.go", []byte(mistakeSource), 5, 6, "a", "b", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "mistake:") || !strings.Contains(string(got), "status := 2*n + 1") {
		t.Errorf("stage 6 without a mistake:\n%s", got)
	}
}

func TestAMistakeDropsItsLinesWritesItsInsteadLinesAndItsUnusedImports(t *testing.T) {
	got, made, err := stageFile("c.go", []byte(mistakeSource), 5, 6, "a", "b", "no-check")
	if err != nil || !made {
		t.Fatalf("made %v, %v", made, err)
	}
	if strings.Contains(string(got), "n < 0") || strings.Contains(string(got), `"errors"`) {
		t.Errorf("the check and its import should be gone:\n%s", got)
	}
	got, made, err = stageFile("c.go", []byte(mistakeSource), 5, 6, "a", "b", "off-by-one")
	if err != nil || !made {
		t.Fatalf("made %v, %v", made, err)
	}
	if !strings.Contains(string(got), "\tstatus := 2 * n\n") || strings.Contains(string(got), "2*n + 1") {
		t.Errorf("the instead line should replace the block:\n%s", got)
	}
}

func TestAMistakeOfALaterStageIsNotMadeInAnEarlierOne(t *testing.T) {
	_, made, err := stageFile("c.go", []byte(mistakeSource), 5, 5, "a", "b", "off-by-one")
	if err != nil || made {
		t.Errorf("stage 5 made the stage 6 mistake: %v, %v", made, err)
	}
	dir := t.TempDir()
	source := filepath.Join(dir, "solutions", "06-x")
	write(t, filepath.Join(source, "go.mod"), "module example.com/w/solutions/06-x\n")
	write(t, filepath.Join(source, "c.go"), mistakeSource)
	err = generateStage(source, filepath.Join(dir, "solutions", "05-x"), 5, 5, "off-by-one")
	if err == nil || !strings.Contains(err.Error(), "no //mistake:off-by-one block in stage 5") {
		t.Errorf("got %v, want the stage named", err)
	}
}

func TestListMistakesGivesEachOneItsStageAndMessage(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "c.go"), mistakeSource)
	write(t, filepath.Join(dir, "d.go"), "package controller\n\n//stage:6\n//mistake:off-by-one says 2n+1\nvar x = 1\n//mistake:end\n//stage:end\n")
	got, err := listMistakes(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].name != "no-check" || got[0].stage != 5 || got[0].want != "refuses a negative n" ||
		got[1].name != "off-by-one" || got[1].stage != 6 || got[1].want != "says 2n+1" {
		t.Errorf("got %+v", got)
	}
	write(t, filepath.Join(dir, "e.go"), "package controller\n\n//mistake:off-by-one another message\n//mistake:end\n")
	if _, err := listMistakes(dir, 5); err == nil || !strings.Contains(err.Error(), "blocks of one mistake must agree") {
		t.Errorf("got %v, want the disagreement named", err)
	}
}

func TestMistakeMarkersMustBeWellFormed(t *testing.T) {
	for src, want := range map[string]string{
		"//mistake:end\n":                          "without a block to close",
		"//mistake:instead x\n":                    "outside a block",
		"//mistake:a says a\n//mistake:b says b\n": "inside the block of a",
		"//mistake:a\n//mistake:end\n":             "the words the failing tests must print",
		"//mistake:a says a\nx\n":                  "is not closed",
	} {
		if _, _, err := makeMistake([]byte(src), "//", ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
