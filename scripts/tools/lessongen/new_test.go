package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scratchRepo copies what lessongen new reads of this repository (the tracks, go.work,
// the pages) into a scratch folder.
func scratchRepo(t *testing.T) string {
	t.Helper()
	root := "../../.."
	dir := t.TempDir()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		switch {
		case rel == ".":
			return nil
		case d.IsDir() && top != "tracks" && top != "docs" && top != "scripts":
			return filepath.SkipDir
		case d.IsDir() && filepath.ToSlash(rel) == "scripts/tools":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		case top == "." || rel == "go.work" || top == "tracks" || top == "docs" || strings.HasPrefix(filepath.ToSlash(rel), "scripts/walkthroughs/"):
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, rel), src, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestNewScaffoldsALessonInTheTemplateAndWritesOverNothing(t *testing.T) {
	root := scratchRepo(t)
	l := newLesson{track: "nodepool", number: 18, folder: "18-nodepool-policies", title: "Admission without a webhook"}
	if err := l.scaffold(root); err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		src, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(src)
	}
	page := read("docs/lesson-18.md")
	if w := countWords("docs/lesson-18.md", []byte(page)); len(w.problems()) != 0 {
		t.Errorf("the new page is not in the template: %q", w.problems())
	}
	if !strings.Contains(page, "<!-- The task list: make generate writes it from tracks/nodepool/lessons.yaml") {
		t.Errorf("the new page has no task list markers:\n%s", page)
	}
	m, err := readManifest(filepath.Join(root, "tracks/nodepool/lessons.yaml"))
	if err != nil {
		t.Fatalf("the manifest does not read after the scaffold: %v", err)
	}
	if got := m.lesson(18); got == nil || got.Folder != "18-nodepool-policies" || len(got.Tasks) != 1 {
		t.Errorf("the manifest's lesson 18: %+v", got)
	}
	work := read("go.work")
	for _, pair := range [][2]string{
		{"./lessons/17-sidecarset-observe\n", "\t./lessons/18-nodepool-policies\n"},
		{"./solutions/17-sidecarset-observe\n", "\t./solutions/18-nodepool-policies\n"},
	} {
		if !strings.Contains(work, pair[0]+pair[1]) {
			t.Errorf("go.work lacks %q right after %q:\n%s", pair[1], pair[0], work)
		}
	}
	if !strings.HasPrefix(read("scripts/walkthroughs/18.sh"), "# shellcheck shell=bash\n# Stage 18: Admission without a webhook.") {
		t.Errorf("the walkthrough does not open as the others do:\n%s", read("scripts/walkthroughs/18.sh"))
	}

	// Again: the lesson exists, and nothing is written.
	before := read("go.work")
	err = l.scaffold(root)
	if err == nil || !strings.Contains(err.Error(), "lesson 18 exists already") {
		t.Errorf("a second scaffold: %v; want it refused, naming the lesson", err)
	}
	if read("go.work") != before {
		t.Errorf("a refused scaffold changed go.work")
	}
}

func TestNewNamesEachBadArgument(t *testing.T) {
	root := scratchRepo(t)
	err := newLesson{track: "nosuch", number: 15, folder: "16-Policies", title: " "}.check(root)
	for _, want := range []string{"-track: \"nosuch\" is not a track; the tracks are capstone, clientgo, imoocpod", "-folder: \"16-Policies\" is not NN-name", "-title:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v; want it to say %q", err, want)
		}
	}
	err = newLesson{track: "nodepool", number: 14, folder: "14-nodepool-apply", title: "x"}.check(root)
	if err == nil || !strings.Contains(err.Error(), "lesson 14 exists already, in tracks/nodepool/lessons.yaml") {
		t.Errorf("an existing lesson: %v", err)
	}
}

// The use block's end and what follows it survive the new lines: an insert must not
// write over the lines after the block (a bug that dropped go.work's ")" once).
func TestWithModulesKeepsTheEndOfTheUseBlock(t *testing.T) {
	work := "go 1.26.0\n\nuse (\n\t./lessons/01-a\n\t./lessons/02-b\n\t./solutions/01-a\n\t./solutions/02-b\n)\n"
	got, err := withModules(work, "./lessons/03-c", "./solutions/03-c")
	if err != nil {
		t.Fatal(err)
	}
	want := "go 1.26.0\n\nuse (\n\t./lessons/01-a\n\t./lessons/02-b\n\t./lessons/03-c\n\t./solutions/01-a\n\t./solutions/02-b\n\t./solutions/03-c\n)\n"
	if got != want {
		t.Errorf("withModules gave\n%s\nwant\n%s", got, want)
	}
}
