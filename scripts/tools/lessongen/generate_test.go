package main

import (
	"os"
	"path/filepath"
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
	//lesson:todo Sort a copy of names and return the first n.
	//lesson:todo See docs/lesson-01.md.
	//lesson:stub return nil, nil
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return sorted[:n], nil
	//lesson:end
}
`

const lesson = `package controller

import (
	"errors"
)

// pick returns the first n names in order.
func pick(names []string, n int) ([]string, error) {
	if n < 0 {
		return nil, errors.New("negative")
	}
	// TODO: Sort a copy of names and return the first n.
	// See docs/lesson-01.md.
	return nil, nil
}
`

func TestReplaceMarkedBlocks(t *testing.T) {
	got, err := lessonFile("pick.go", []byte(solution), "example.com/w/solutions/01-x", "example.com/w/lessons/01-x")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != lesson {
		t.Errorf("lesson:\n%s\nwant:\n%s", got, lesson)
	}
}

func TestMarkerMistakesAreReportedWithTheLine(t *testing.T) {
	tests := map[string]struct{ src, want string }{
		"unclosed block": {"package p\n//lesson:todo x\nvar a = 1\n", "a block is not closed"},
		"end alone":      {"package p\n//lesson:end\n", "2: //lesson:end without a block to close"},
		"stub after code": {"package p\n//lesson:todo x\nvar a = 1\n//lesson:stub var a int\n//lesson:end\n",
			"4: //lesson:stub must follow the block's //lesson:todo lines"},
		"misspelt marker": {"package p\n//lesson:todos x\n", `2: unknown marker "//lesson:todos x"`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := lessonFile("p.go", []byte(tt.src), "a", "b")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestGoMarkersOutsideGoFilesAreRefused(t *testing.T) {
	_, err := lessonFile("config/samples/x.yaml", []byte("#//lesson:todo x\n"), "a", "b")
	if err == nil || !strings.Contains(err.Error(), "only understood in Go files") {
		t.Errorf("error %v, want a refusal", err)
	}
}

// A YAML file or a Dockerfile marks what the learner writes with #lesson: markers.
func TestHashMarkersInOtherFiles(t *testing.T) {
	src := "resources:\n- a.yaml\n#lesson:todo Add the patch.\n#lesson:todo See the docs.\n#lesson:stub patches: []\npatches:\n- path: p.yaml\n#lesson:end\nimage: example.com/w/solutions/01-x\n"
	want := "resources:\n- a.yaml\n# TODO: Add the patch.\n# See the docs.\npatches: []\nimage: example.com/w/lessons/01-x\n"
	got, err := lessonFile("config/default/kustomization.yaml", []byte(src), "example.com/w/solutions/01-x", "example.com/w/lessons/01-x")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("lesson:\n%s\nwant:\n%s", got, want)
	}
	_, err = lessonFile("Dockerfile", []byte("#lesson:todo x\nFROM a\n"), "a", "b")
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
	write(filepath.Join(to, "stale.go"), "package stale\n")

	if err := generate(from, to); err != nil {
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
