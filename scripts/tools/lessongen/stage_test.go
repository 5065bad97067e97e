package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The source of a track of stages 5 to 7: stage 6 adds a status, stage 7 events.
const trackSource = `package controller

import (
	"errors"
	//stage:7
	"fmt"
	//stage:end
)

// reconcile does the work of one pass.
func reconcile(n int) (int, error) {
	if n < 0 {
		return 0, errors.New("negative")
	}
	//lesson:todo Double n.
	//lesson:stub return 0, nil
	doubled := 2 * n
	//lesson:end
	//stage:6
	//lesson:todo Count the pass into the status.
	status := doubled + 1
	//lesson:end
	//stage:7
	//lesson:todo Say what changed.
	fmt.Println("changed", status)
	//lesson:end
	//stage:end
	return status, nil
	//stage:old return doubled, nil
	//stage:end
}
`

func TestEachStageHasItsLinesAndOnlyItsOwnLessonMarkers(t *testing.T) {
	want := map[int]string{
		5: `package controller

import (
	"errors"
)

// reconcile does the work of one pass.
func reconcile(n int) (int, error) {
	if n < 0 {
		return 0, errors.New("negative")
	}
	//lesson:todo Double n.
	//lesson:stub return 0, nil
	doubled := 2 * n
	//lesson:end
	return doubled, nil
}
`,
		6: `package controller

import (
	"errors"
)

// reconcile does the work of one pass.
func reconcile(n int) (int, error) {
	if n < 0 {
		return 0, errors.New("negative")
	}
	doubled := 2 * n
	//lesson:todo Count the pass into the status.
	status := doubled + 1
	//lesson:end
	return status, nil
}
`,
		7: `package controller

import (
	"errors"
	"fmt"
)

// reconcile does the work of one pass.
func reconcile(n int) (int, error) {
	if n < 0 {
		return 0, errors.New("negative")
	}
	doubled := 2 * n
	status := doubled + 1
	//lesson:todo Say what changed.
	fmt.Println("changed", status)
	//lesson:end
	return status, nil
}
`,
	}
	for stage, want := range want {
		got, _, err := stageFile("c.go", []byte(trackSource), 5, stage, "example.com/w/solutions/07-x", "example.com/w/solutions/05-x", "")
		if err != nil {
			t.Fatalf("stage %d: %v", stage, err)
		}
		if string(got) != want {
			t.Errorf("stage %d:\n%s\nwant:\n%s", stage, got, want)
		}
	}
}

func TestAFileOfALaterStageDoesNotExistBefore(t *testing.T) {
	src := "//stage:6\npackage controller\n\nconst x = 1\n//stage:end\n"
	got, _, err := stageFile("c.go", []byte(src), 5, 5, "a", "b", "")
	if err != nil || got != nil {
		t.Errorf("stage 5: %q, %v; want no file", got, err)
	}
	got, _, err = stageFile("c.go", []byte(src), 5, 6, "a", "b", "")
	if err != nil || string(got) != "package controller\n\nconst x = 1\n" {
		t.Errorf("stage 6: %q, %v; want the file without markers", got, err)
	}
}

func TestYAMLFilesUseHashMarkersAndTheNewModulePath(t *testing.T) {
	src := "resources:\n- ../crd\n#stage:8\n- ../webhook\n#stage:old # no webhooks yet\n#stage:end\nmodule: example.com/w/solutions/08-x\n"
	got, _, err := stageFile("kustomization.yaml", []byte(src), 5, 6, "example.com/w/solutions/08-x", "example.com/w/solutions/06-x", "")
	want := "resources:\n- ../crd\n# no webhooks yet\nmodule: example.com/w/solutions/06-x\n"
	if err != nil || string(got) != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

func TestNestedBlocksExistOnlyWhenEveryOuterOneDoes(t *testing.T) {
	src := "a\n#stage:6\nb\n#stage:7\nc\n#stage:old c6\n#stage:end\n#stage:old b5\n#stage:end\n"
	want := map[int]string{5: "a\nb5\n", 6: "a\nb\nc6\n", 7: "a\nb\nc\n"}
	for stage, w := range want {
		got, _, err := selectStage([]byte(src), "#", 5, stage)
		if err != nil || string(got) != w {
			t.Errorf("stage %d: %q, %v; want %q", stage, got, err, w)
		}
	}
}

func TestStageMarkerMistakesAreReportedWithTheLine(t *testing.T) {
	tests := map[string]struct{ src, want string }{
		"unclosed":         {"a\n//stage:6\nb\n", "a //stage:6 block is not closed"},
		"end alone":        {"a\n//stage:end\n", "2: //stage:end without a block to close"},
		"old outside":      {"//stage:old a\n", "1: //stage:old outside a block"},
		"first stage":      {"//stage:5\na\n//stage:end\n", "1: //stage:5: the track starts at stage 5"},
		"inner is earlier": {"//stage:7\n//stage:6\n//stage:end\n//stage:end\n", "2: //stage:6 inside a block of stage 7"},
		"misspelt":         {"//stage:from 6\n", `1: unknown marker "//stage:from 6"`},
		"in a doc comment": {"// f does it.\n//\n//stage:6\nfunc f() {}\n//stage:end\n", "3: //stage:6 stands in a doc comment"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := selectStage([]byte(tt.src), "//", 5, 6)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestGenerateStageLeavesOutGeneratedFilesAndEmptyFolders(t *testing.T) {
	top := t.TempDir()
	source := filepath.Join(top, "solutions", "07-x")
	files := map[string]string{
		"go.mod":                             "module example.com/w/solutions/07-x\n\ngo 1.26.0\n",
		"api/v1/types.go":                    "package v1\n\ntype T struct{}\n",
		"api/v1/zz_generated.deepcopy.go":    "package v1\n",
		"config/crd/bases/t.yaml":            "kind: CustomResourceDefinition\n",
		"internal/webhook/v1/webhook.go":     "//stage:7\npackage v1\n//stage:end\n",
		"internal/controller/controller.go":  "package controller\n\nimport _ \"example.com/w/solutions/07-x/api/v1\"\n",
		"config/webhook/manifests.yaml":      "kind: ValidatingWebhookConfiguration\n",
		"config/samples/v1_t.yaml":           "kind: T\n",
		"internal/controller/testdata/input": "kept as it is\n",
	}
	for rel, content := range files {
		path := filepath.Join(source, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	to := filepath.Join(top, "solutions", "05-x")
	if err := generateStage(source, to, 5, 5, ""); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := filepath.WalkDir(to, func(path string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(to, path)
		got = append(got, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := ". api api/v1 api/v1/types.go config config/samples config/samples/v1_t.yaml go.mod internal internal/controller internal/controller/controller.go internal/controller/testdata internal/controller/testdata/input"
	if strings.Join(got, " ") != want {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, " "), want)
	}
	controller, _ := os.ReadFile(filepath.Join(to, "internal/controller/controller.go"))
	if !strings.Contains(string(controller), `"example.com/w/solutions/05-x/api/v1"`) {
		t.Errorf("the import path was not moved to the stage's module:\n%s", controller)
	}
	if err := generateStage(source, source, 5, 7, ""); err == nil {
		t.Error("a stage written over its own source was not refused")
	}
}
