package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var testLesson = lesson{Number: 1, Title: "x", Folder: "lessons/01-x", Todos: []todo{
	{ID: 1, Title: "Validate", File: "api/v1/x_types.go", Line: 11, Hints: []string{"h1", "h2"}, Tests: []string{"TestAPI"}},
	{ID: 2, Title: "Scale up", File: "internal/controller/x.go", Line: 90, Hints: []string{"h1", "h2", "h3"}, Tests: []string{"TestScaleUp", "TestScaleUpTwice"}},
	{ID: 3, Title: "Scale down", File: "internal/controller/x.go", Line: 120, Hints: []string{"h1", "h2"}, Tests: []string{"TestScaleDown"}},
}}

// goTest returns go test -json's events for tests that passed and failed, in order;
// the first failure prints a gomega-like message in a subtest.
func goTest(passed []string, failed string) string {
	var b strings.Builder
	ev := func(action, test, output string) {
		b.WriteString(`{"Action":"` + action + `","Package":"p","Test":"` + test + `","Output":` + quote(output) + "}\n")
	}
	for _, name := range passed {
		ev("run", name, "")
		ev("output", name, "=== RUN   "+name+"\n")
		ev("pass", name, "")
	}
	if failed != "" {
		ev("run", failed, "")
		ev("output", failed+"/three", "    x_test.go:42: \n")
		ev("output", failed+"/three", "        the ImoocPod should have 3 pods\n")
		ev("output", failed+"/three", "        Expected\n            <int>: 0\n        to equal\n            <int>: 3\n")
		ev("fail", failed+"/three", "")
		ev("fail", failed, "")
		b.WriteString(`{"Action":"fail","Package":"p"}` + "\n")
	}
	return b.String()
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

func TestCheckListsEveryTaskAndTheFirstFailure(t *testing.T) {
	result := filepath.Join(t.TempDir(), "r")
	var out bytes.Buffer
	err := check(strings.NewReader(goTest([]string{"TestAPI", "TestScaleUp"}, "TestScaleUpTwice")), &out, testLesson, result, "", "", false)
	if !errors.As(err, new(errFailed)) {
		t.Errorf("err = %v, want the failure reported", err)
	}
	for _, want := range []string{
		"1 of 3 tasks done",
		"done     TODO(1) Validate    api/v1/x_types.go:11",
		"failing  TODO(2) Scale up",
		"TestScaleUpTwice/three: the ImoocPod should have 3 pods",
		"Expected <int>: 0 to equal <int>: 3",
		"A hint: make hint-1 T=2",
		"not run  TODO(3) Scale down",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("checklist lacks %q:\n%s", want, out.String())
		}
	}
	if b, _ := os.ReadFile(result); string(b) != "1 3 1 2\n" {
		t.Errorf("result = %q, want 1 done of 3, failed, first not done 2", b)
	}
}

func TestCheckPassesWhenEveryTaskIsDone(t *testing.T) {
	var out bytes.Buffer
	err := check(strings.NewReader(goTest([]string{"TestAPI", "TestScaleUp", "TestScaleUpTwice", "TestScaleDown"}, "")), &out, testLesson, "", "", "", false)
	if err != nil || !strings.Contains(out.String(), "3 of 3 tasks done") {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
}

func TestCheckShowsBuildErrors(t *testing.T) {
	var out bytes.Buffer
	stream := `{"ImportPath":"p","Action":"build-output","Output":"x.go:3:1: undefined: foo\n"}` + "\n" +
		`{"ImportPath":"p","Action":"build-fail"}` + "\n"
	err := check(strings.NewReader(stream), &out, testLesson, "", "", "", false)
	if !errors.As(err, new(errFailed)) || !strings.Contains(out.String(), "undefined: foo") || !strings.Contains(out.String(), "0 of 3 tasks done") {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
}

func TestExpect(t *testing.T) {
	tests := map[string]struct {
		passed []string
		failed string
		solved int
		want   string // empty: expected as it is
	}{
		"first task":              {[]string{"TestAPI"}, "TestScaleUp", 1, ""},
		"none solved":             {nil, "TestAPI", 0, ""},
		"solved task not done":    {nil, "TestAPI", 1, "task 1 is solved but failing"},
		"next task passes anyway": {[]string{"TestAPI", "TestScaleUp", "TestScaleUpTwice"}, "TestScaleDown", 1, "task 2 is not solved but done"},
		"next task not run":       {[]string{"TestAPI"}, "TestScaleDown", 1, "task 2 is not solved but not run"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := expect(strings.NewReader(goTest(tt.passed, tt.failed)), &out, testLesson, tt.solved)
			if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(out.String(), tt.want) {
				t.Errorf("err = %v, output:\n%s\nwant %q", err, out.String(), tt.want)
			}
		})
	}
}

func TestHintShowsTheNextHintEachTime(t *testing.T) {
	dir := t.TempDir()
	result := filepath.Join(dir, "r")
	if err := os.WriteFile(result, []byte("1 3 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var outs []string
	for range 4 {
		var out bytes.Buffer
		if err := hint(&out, testLesson, 0, filepath.Join(dir, "seen"), result); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out.String())
	}
	if !strings.Contains(outs[0], "TODO(2) Scale up (lessons/01-x/internal/controller/x.go:90)") ||
		!strings.Contains(outs[0], "Hint 1 of 3: h1") || strings.Contains(outs[0], "Hint 2") {
		t.Errorf("first hint:\n%s", outs[0])
	}
	if !strings.Contains(outs[1], "Hint 2 of 3: h2") || strings.Contains(outs[1], "Hint 3") {
		t.Errorf("second hint:\n%s", outs[1])
	}
	for _, out := range outs[2:] {
		if !strings.Contains(out, "Hint 3 of 3: h3") || !strings.Contains(out, "make diff-1") {
			t.Errorf("last hint:\n%s", out)
		}
	}
	var out bytes.Buffer
	if err := hint(&out, testLesson, 7, filepath.Join(dir, "seen"), result); err == nil || !strings.Contains(err.Error(), "tasks 1 to 3") {
		t.Errorf("T=7: %v", err)
	}
}

func TestCheckShowsAFailingTestOfNoTask(t *testing.T) {
	var out bytes.Buffer
	err := check(strings.NewReader(goTest([]string{"TestAPI", "TestScaleUp", "TestScaleUpTwice", "TestScaleDown"}, "TestLeftOver")), &out, testLesson, "", "", "", false)
	if !errors.As(err, new(errFailed)) || !strings.Contains(out.String(), "A test of no task fails:") ||
		!strings.Contains(out.String(), "TestLeftOver/three: the ImoocPod should have 3 pods") {
		t.Errorf("err = %v, output:\n%s", err, out.String())
	}
}

func TestCheckWritesWhatFailedApart(t *testing.T) {
	dir := t.TempDir()
	failures := filepath.Join(dir, "failures")
	stream := goTest([]string{"TestAPI"}, "TestScaleUp")
	// A test that passes may print what looks like a symptom: it is not one.
	stream = strings.Replace(stream, `"Output":"=== RUN   TestAPI\n"`, `"Output":"conflict: the object has been modified\n"`, 1)
	err := check(strings.NewReader(stream), new(bytes.Buffer), testLesson, "", filepath.Join(dir, "log"), failures, false)
	if !errors.As(err, new(errFailed)) {
		t.Fatalf("err = %v, want the failure reported", err)
	}
	b, _ := os.ReadFile(failures)
	if !strings.Contains(string(b), "the ImoocPod should have 3 pods") || strings.Contains(string(b), "the object has been modified") {
		t.Errorf("failures = %q, want the failing test's output and nothing of the passing one", b)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "log")); !strings.Contains(string(log), "the object has been modified") {
		t.Errorf("log = %q, want everything", log)
	}
}
