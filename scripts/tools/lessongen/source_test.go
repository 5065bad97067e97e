package main

import (
	"fmt"
	"strings"
	"testing"
)

// The source of a track of stages 5 to 7: lesson 5 doubles n, lesson 6 adds a status
// (task 1 of lesson 6 changes the return that stage 5 had), lesson 7 says what changed.
const trackSource = `package controller

import (
	"errors"
	"fmt"
)

// reconcile does the work of one pass.
func reconcile(n int) (int, error) {
	if n < 0 {
		return 0, errors.New("negative")
	}
	//lesson:5.1
	//lesson:stub doubled := 0
	doubled := 2 * n
	//lesson:end
	//stage:6
	status := doubled + 1
	//stage:7
	fmt.Println("changed", status)
	//stage:end
	//stage:end
	//lesson:6.1
	return status, nil
	//stage:old return doubled, nil
	//lesson:end
}
`

// texts of the tasks above, as a manifest gives them.
func testTexts(lesson, task int, place string) (string, []string, error) {
	if place != "" {
		return fmt.Sprintf("Also %s of %d.%d.", place, lesson, task), []string{"Its text."}, nil
	}
	return fmt.Sprintf("Task %d of lesson %d.", task, lesson), []string{"What to write,", "and where to look."}, nil
}

func renderString(t *testing.T, src string, tg target) string {
	t.Helper()
	out, _, _, err := render([]byte(src), "//", 5, tg, testTexts)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestEachStageHasItsOwnLinesAndNoMarker(t *testing.T) {
	for stage, want := range map[int][]string{
		5: {"doubled := 2 * n", "return doubled, nil"},
		6: {"doubled := 2 * n", "status := doubled + 1", "return status, nil"},
		7: {"doubled := 2 * n", "status := doubled + 1", `fmt.Println("changed", status)`, "return status, nil"},
	} {
		got := renderString(t, trackSource, target{Stage: stage})
		for _, line := range want {
			if !strings.Contains(got, line) {
				t.Errorf("stage %d lacks %q:\n%s", stage, line, got)
			}
		}
		for _, absent := range []string{"stage:", "lesson:", "TODO"} {
			if strings.Contains(got, absent) {
				t.Errorf("stage %d has %q:\n%s", stage, absent, got)
			}
		}
		if stage < 7 && strings.Contains(got, "Println") || stage < 6 && strings.Contains(got, "status") {
			t.Errorf("stage %d has lines of a later stage:\n%s", stage, got)
		}
	}
}

func TestALessonReplacesItsOwnTasksWithTheirTodoAndStub(t *testing.T) {
	got := renderString(t, trackSource, target{Stage: 5, Lesson: true})
	want := `	// TODO(1): Task 1 of lesson 5.
	// What to write,
	// and where to look.
	doubled := 0
	return doubled, nil
`
	if !strings.Contains(got, want) {
		t.Errorf("lesson 5 should have task 1's TODO and stub, and stage 5's return:\n%s", got)
	}
	// Lesson 6 starts from solution 5: task 1 of lesson 5 is plain code by then, and
	// stage 5's return stands under the TODO of lesson 6's task, which has no stub.
	got = renderString(t, trackSource, target{Stage: 6, Lesson: true})
	for _, line := range []string{"doubled := 2 * n", "// TODO(1): Task 1 of lesson 6.", "return doubled, nil"} {
		if !strings.Contains(got, line) {
			t.Errorf("lesson 6 lacks %q:\n%s", line, got)
		}
	}
	for _, line := range []string{"return status", "Task 1 of lesson 5"} {
		if strings.Contains(got, line) {
			t.Errorf("lesson 6 has %q:\n%s", line, got)
		}
	}
}

// A lesson with its first tasks solved is what the maintainers' check runs the tests on.
func TestSolvedTasksKeepTheSolution(t *testing.T) {
	got := renderString(t, trackSource, target{Stage: 5, Lesson: true, Done: 1})
	if want := renderString(t, trackSource, target{Stage: 5}); got != want {
		t.Errorf("lesson 5 with its only task solved:\n%s\nwant solution 5:\n%s", got, want)
	}
}

func TestFencesSayWhereEachTaskIs(t *testing.T) {
	src := "package x\n\nfunc f() {\n\t//lesson:5.1\n\tg()\n\t//lesson:end\n\t//lesson:5.1 more\n\th()\n\t//lesson:end\n}\n"
	out, _, fences, err := render([]byte(src), "//", 5, target{Stage: 5, Lesson: true}, testTexts)
	if err != nil {
		t.Fatal(err)
	}
	want := []fence{{Lesson: 5, Task: 1, Line: 4}, {Lesson: 5, Task: 1, Place: "more", Line: 7}}
	if fmt.Sprint(fences) != fmt.Sprint(want) {
		t.Errorf("fences %v, want %v", fences, want)
	}
	lines := strings.Split(string(out), "\n")
	if lines[3] != "\t// TODO(1): Task 1 of lesson 5." || lines[6] != "\t// TODO(1): Also more of 5.1." {
		t.Errorf("the fences' lines do not hold their TODOs:\n%s", out)
	}
}

func TestYAMLAndDockerfilesTakeHashMarkers(t *testing.T) {
	src := "a: 1\n#stage:6\nb: 2\n#stage:old b: 1\n#stage:end\n#lesson:5.1\n#lesson:stub c: 0\nc: 3\n#lesson:end\n"
	out, _, _, err := render([]byte(src), "#", 5, target{Stage: 5, Lesson: true}, testTexts)
	if err != nil {
		t.Fatal(err)
	}
	want := "a: 1\nb: 1\n# TODO(1): Task 1 of lesson 5.\n# What to write,\n# and where to look.\nc: 0\n"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestAFileEmptyInAStageDoesNotExistThere(t *testing.T) {
	out, _, _, err := render([]byte("//stage:6\npackage x\n//stage:end\n"), "//", 5, target{Stage: 5}, testTexts)
	if err != nil || out != nil {
		t.Errorf("got %q, %v; want no file", out, err)
	}
}

func TestMalformedMarkersAreErrorsThatSayWhatToDo(t *testing.T) {
	for name, c := range map[string]struct{ src, want string }{
		"unclosed":          {"//stage:6\nx\n", "1: this block is not closed"},
		"end alone":         {"x\n//stage:end\n", "2: //stage:end without a block to close"},
		"wrong end":         {"//lesson:5.1\nx\n//stage:end\n", "want //lesson:end"},
		"first stage":       {"//stage:5\nx\n//stage:end\n", "the track starts at stage 5"},
		"earlier inside":    {"//stage:7\n//stage:6\nx\n//stage:end\n//stage:end\n", "an inner block cannot exist earlier"},
		"lesson in lesson":  {"//lesson:5.1\n//lesson:5.2\nx\n//lesson:end\n//lesson:end\n", "inside the block of task 5.1"},
		"lesson too early":  {"//stage:7\n//lesson:6.1\nx\n//lesson:end\n//stage:end\n", "the code of lesson 6 would not exist in its own lesson"},
		"stub outside":      {"//lesson:stub x\n", "outside a lesson block"},
		"old outside":       {"//stage:old x\n", "outside a block of a later stage"},
		"in a doc comment":  {"// Doc.\n//\n//stage:6\nfunc f() {}\n//stage:end\n", "stands in a doc comment"},
		"unknown":           {"//lesson:todo(1) Title\n", `unknown marker "//lesson:todo(1) Title"`},
		"lesson without .K": {"//lesson:5\nx\n//lesson:end\n", `unknown marker "//lesson:5"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := render([]byte(c.src), "//", 5, target{Stage: 7}, testTexts)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one that says %q", err, c.want)
			}
		})
	}
}

// A lesson starts from the solution before: a block without a stub shows, under its
// TODO, the lines that stood there before its lesson.
func TestABlockWithoutAStubStartsFromWhatStoodThereBefore(t *testing.T) {
	src := "package x\n\nfunc f() int {\n\t//lesson:6.1\n\treturn 2\n\t//stage:old return 1\n\t//lesson:end\n}\n"
	lesson := renderString(t, src, target{Stage: 6, Lesson: true})
	if want := "\t// and where to look.\n\treturn 1\n}\n"; !strings.HasSuffix(lesson, want) {
		t.Errorf("lesson 6 should keep solution 5's line under the TODO:\n%s", lesson)
	}
	if got := renderString(t, src, target{Stage: 5}); !strings.Contains(got, "return 1") || strings.Contains(got, "return 2") {
		t.Errorf("stage 5:\n%s", got)
	}
	_, _, _, err := render([]byte(strings.Replace(src, "\t//lesson:end", "\t//lesson:stub return 0\n\t//lesson:end", 1)), "//", 5, target{Stage: 6}, testTexts)
	if err == nil || !strings.Contains(err.Error(), "a block's stub comes first") {
		t.Errorf("a stub after old lines: error %v", err)
	}
}
