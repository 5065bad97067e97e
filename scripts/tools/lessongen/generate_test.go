package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const solution = `package controller

import (
	"errors"
	"sort"
)

// pick returns the first n names in order.
func pick(names []string, n int) ([]string, error) {
	if n < 0 {
		return nil, errors.New("negative")
	}
	//lesson:todo(1) Sort the names.
	//lesson:todo Sort a copy of names and return the first n.
	//lesson:todo See docs/lesson-01.md.
	//lesson:hint The standard library sorts.
	//lesson:hint sort.Strings sorts in place: copy first.
	//lesson:test TestPick
	//lesson:stub return nil, nil
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return sorted[:n], nil
	//lesson:end
}
`

const wantLesson = `package controller

import (
	"errors"
)

// pick returns the first n names in order.
func pick(names []string, n int) ([]string, error) {
	if n < 0 {
		return nil, errors.New("negative")
	}
	// TODO(1): Sort the names.
	// Sort a copy of names and return the first n.
	// See docs/lesson-01.md.
	return nil, nil
}
`

func TestReplaceMarkedBlocks(t *testing.T) {
	got, blocks, err := lessonFile("pick.go", []byte(solution), "example.com/w/solutions/01-x", "example.com/w/lessons/01-x", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != wantLesson {
		t.Errorf("lesson:\n%s\nwant:\n%s", got, wantLesson)
	}
	want := todo{ID: 1, Title: "Sort the names.", Hints: []string{"The standard library sorts.", "sort.Strings sorts in place: copy first."}, Tests: []string{"TestPick"}}
	if len(blocks) != 1 || !reflect.DeepEqual(blocks[0], want) {
		t.Errorf("blocks %+v, want [%+v]", blocks, want)
	}
}

// A lesson with its first tasks solved is what the maintainer's check runs the tests on.
func TestSolvedTasksKeepTheSolution(t *testing.T) {
	got, _, err := lessonFile("pick.go", []byte(solution), "example.com/w/solutions/01-x", "example.com/w/lessons/01-x", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sorted := append([]string(nil), names...)", `"sort"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("solved lesson lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "TODO") || strings.Contains(string(got), "return nil, nil") {
		t.Errorf("solved lesson keeps the TODO or the stub:\n%s", got)
	}
}

func TestTasksAreChecked(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pick_test.go"), []byte("package p\n\nfunc TestPick(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	main := func(id int, tests ...string) todo {
		return todo{ID: id, File: "pick.go", Hints: []string{"a", "b"}, Tests: tests}
	}
	tests := map[string]struct {
		blocks []todo
		want   string
	}{
		"no task":         {nil, "a lesson without a task"},
		"none numbered":   {[]todo{{ID: 0, File: "b.go"}}, "b.go: a TODO block without its task's number"},
		"unnumbered":      {[]todo{main(1, "TestPick"), {ID: 0, File: "b.go"}}, "b.go: a TODO block without its task's number"},
		"gap":             {[]todo{main(1, "TestPick"), main(3, "TestPick")}, "numbered 1 to 2, but there is no task 2"},
		"one hint":        {[]todo{{ID: 1, File: "pick.go", Hints: []string{"a"}, Tests: []string{"TestPick"}}}, "task 1 has 1 hints"},
		"no test":         {[]todo{{ID: 1, File: "pick.go", Hints: []string{"a", "b"}}}, "task 1 names no test"},
		"unknown test":    {[]todo{main(1, "TestPik")}, "task 1 names TestPik, which no _test.go file"},
		"two main blocks": {[]todo{main(1, "TestPick"), main(1, "TestPick")}, "task 1 has hints or tests in pick.go and in pick.go"},
		"no main block":   {[]todo{main(1, "TestPick"), {ID: 2, File: "c.go"}}, "c.go: task 2 has no block with its hints and tests"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := tasks(dir, tt.blocks)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
	got, err := tasks(dir, []todo{{ID: 2, File: "c.go"}, main(2, "TestPick"), main(1, "TestPick")})
	if err != nil || len(got) != 2 || got[0].ID != 1 || got[1].ID != 2 {
		t.Errorf("tasks = %+v, %v; want tasks 1 and 2 in order", got, err)
	}
}

func TestMarkerMistakesAreReportedWithTheLine(t *testing.T) {
	tests := map[string]struct{ src, want string }{
		"unclosed block": {"package p\n//lesson:todo x\nvar a = 1\n", "a block is not closed"},
		"end alone":      {"package p\n//lesson:end\n", "2: //lesson:end without a block to close"},
		"stub after code": {"package p\n//lesson:todo x\nvar a = 1\n//lesson:stub var a int\n//lesson:end\n",
			"4: //lesson:stub must follow the block's //lesson:todo lines"},
		"misspelt marker": {"package p\n//lesson:todos x\n", `2: unknown marker "//lesson:todos x"`},
		"bad number":      {"package p\n//lesson:todo(x) t\n", `2: "//lesson:todo(x)": a task's number is a whole number`},
		"number twice":    {"package p\n//lesson:todo(1) t\n//lesson:todo(1) u\n", "3: a block is one task"},
		"hint after code": {"package p\n//lesson:todo(1) t\nvar a = 1\n//lesson:hint h\n//lesson:end\n", "4: //lesson:hint belongs between"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := lessonFile("p.go", []byte(tt.src), "a", "b", 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestGoMarkersOutsideGoFilesAreRefused(t *testing.T) {
	_, _, err := lessonFile("config/samples/x.yaml", []byte("#//lesson:todo x\n"), "a", "b", 0)
	if err == nil || !strings.Contains(err.Error(), "only understood in Go files") {
		t.Errorf("error %v, want a refusal", err)
	}
}

// A YAML file or a Dockerfile marks what the learner writes with #lesson: markers.
func TestHashMarkersInOtherFiles(t *testing.T) {
	src := "resources:\n- a.yaml\n#lesson:todo Add the patch.\n#lesson:todo See the docs.\n#lesson:stub patches: []\npatches:\n- path: p.yaml\n#lesson:end\nimage: example.com/w/solutions/01-x\n"
	want := "resources:\n- a.yaml\n# TODO: Add the patch.\n# See the docs.\npatches: []\nimage: example.com/w/lessons/01-x\n"
	got, _, err := lessonFile("config/default/kustomization.yaml", []byte(src), "example.com/w/solutions/01-x", "example.com/w/lessons/01-x", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("lesson:\n%s\nwant:\n%s", got, want)
	}
	_, _, err = lessonFile("Dockerfile", []byte("#lesson:todo x\nFROM a\n"), "a", "b", 0)
	if err == nil || !strings.Contains(err.Error(), "a block is not closed: add #lesson:end") {
		t.Errorf("error %v, want the unclosed block reported", err)
	}
}

func TestGenerateRewritesTheModulePath(t *testing.T) {
	root := t.TempDir()
	from := filepath.Join(root, "solutions", "01-x")
	to := filepath.Join(root, "lessons", "01-x")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(from, "go.mod"), "module example.com/w/solutions/01-x\n\ngo 1.26.0\n")
	write(filepath.Join(from, "cmd", "main.go"), "package main\n\nimport _ \"example.com/w/solutions/01-x/api\"\n")
	write(filepath.Join(from, "api", "pick.go"), "package api\n\nfunc Pick() int {\n\t//lesson:todo(1) Pick one.\n"+
		"\t//lesson:hint a\n\t//lesson:hint b\n\t//lesson:test TestPick\n\t//lesson:stub return 0\n\treturn 1\n\t//lesson:end\n}\n")
	write(filepath.Join(from, "api", "pick_test.go"), "package api\n\nimport \"testing\"\n\nfunc TestPick(t *testing.T) {}\n")
	write(filepath.Join(to, "stale.go"), "package stale\n")

	if _, err := generate(from, to, 0); err != nil {
		t.Fatal(err)
	}
	gomod, _ := os.ReadFile(filepath.Join(to, "go.mod"))
	if !strings.HasPrefix(string(gomod), "module example.com/w/lessons/01-x\n") {
		t.Errorf("go.mod = %q", gomod)
	}
	main, _ := os.ReadFile(filepath.Join(to, "cmd", "main.go"))
	if !strings.Contains(string(main), `"example.com/w/lessons/01-x/api"`) {
		t.Errorf("main.go = %q", main)
	}
	if _, err := os.Stat(filepath.Join(to, "stale.go")); !os.IsNotExist(err) {
		t.Errorf("a file the solution no longer has should be gone from the lesson")
	}
}
