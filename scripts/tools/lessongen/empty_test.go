package main

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// emptyRepo is a repository with one track whose lesson starts from an empty folder: its
// code has no marker, its tasks are requirements graded by the suite in suiteDir.
var emptyRepo = map[string]string{
	"tracks/own/go.mod":  "module example.com/w/tracks/own\n\ngo 1.26.0\n",
	"tracks/own/main.go": "package main\n\nfunc main() {}\n",
	"tracks/own/lessons.yaml": `operator: Own
lessons:
- number: 15
  folder: 15-own
  empty: true
  timeout: 60s
  tasks:
  - id: 1
    title: It runs.
    hints: [Run it., Then again.]
    tests: [TestR1ItRuns]
`,
	"docs/lesson-15.md":                "# Lesson 15: On your own\n",
	suiteDir + "/requirements_test.go": "package capstone\n\nimport \"testing\"\n\nfunc TestR1ItRuns(t *testing.T) {}\n",
}

// A lesson that starts empty gives the learner its README alone, the solution the whole
// track, and the index its requirements with the suite's tests.
func TestALessonThatStartsEmptyHoldsItsReadmeAlone(t *testing.T) {
	root := writeRepo(t, emptyRepo)
	if err := writeAll(root, root); err != nil {
		t.Fatal(err)
	}
	lesson := readTree(t, filepath.Join(root, "lessons", "15-own"))
	if got := slices.Sorted(maps.Keys(lesson)); !slices.Equal(got, []string{"README.md"}) {
		t.Errorf("the lesson's folder holds %v, want README.md alone", got)
	}
	if !strings.Contains(lesson["README.md"], "empty on purpose") || !strings.Contains(lesson["README.md"], "GOWORK=off") {
		t.Errorf("the lesson's README does not say how to start:\n%s", lesson["README.md"])
	}
	solution := readTree(t, filepath.Join(root, "solutions", "15-own"))
	if _, ok := solution["main.go"]; !ok || !strings.Contains(solution["go.mod"], "example.com/w/solutions/15-own") {
		t.Errorf("the solution is not the track's module: %v", slices.Sorted(maps.Keys(solution)))
	}
	l, err := index.ReadLesson(filepath.Join(root, "lessons", "index.json"), 15)
	if err != nil {
		t.Fatal(err)
	}
	if !l.StartsEmpty || len(l.Todos) != 1 || l.Todos[0].Tests[0] != "TestR1ItRuns" || l.Todos[0].File != "" {
		t.Errorf("the index's entry: %+v", l)
	}
}

// A requirement names one test, which the suite must define, and has no TODO text.
func TestALessonThatStartsEmptyIsRefusedATodoOrATestTheSuiteLacks(t *testing.T) {
	for name, c := range map[string]struct{ from, to, want string }{
		"a todo":         {"    tests: [TestR1ItRuns]\n", "    tests: [TestR1ItRuns]\n    todo: Write it.\n", "has no TODO in its code"},
		"two tests":      {"tests: [TestR1ItRuns]", "tests: [TestR1ItRuns, TestR2]", "is one test of its grading suite"},
		"a missing test": {"tests: [TestR1ItRuns]", "tests: [TestR9Missing]", "TestR9Missing is not a test of the stage"},
	} {
		t.Run(name, func(t *testing.T) {
			files := maps.Clone(emptyRepo)
			files["tracks/own/lessons.yaml"] = strings.Replace(files["tracks/own/lessons.yaml"], c.from, c.to, 1)
			root := writeRepo(t, files)
			err := writeAll(root, root)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("writeAll: %v; want an error saying %q", err, c.want)
			}
		})
	}
}

// testTaskRepo is emptyRepo with a test task: the learner writes the test at file, in
// the module they scaffold, and bugs grade it.
func testTaskRepo() map[string]string {
	files := maps.Clone(emptyRepo)
	files["tracks/own/lessons.yaml"] += `  - id: 2
    title: Test it.
    file: run_test.go
    hints: [Write it., Then again.]
    tests: [TestItRunsTwice]
    mutants:
    - name: runs-once
      bug: it runs once
      edits:
      - file: main.go
        find: "func main() {}"
        instead: "func main() { return }"
`
	files["tracks/own/run_test.go"] = "package main\n\nimport \"testing\"\n\nfunc TestItRunsTwice(t *testing.T) {}\n"
	return files
}

// A test task of a lesson that starts empty names the file the learner writes, which
// the solution holds and the suite does not: the index gives it that file and its bugs,
// and the page's task list says what to write where.
func TestALessonThatStartsEmptyHasATestTaskAtItsFile(t *testing.T) {
	root := writeRepo(t, testTaskRepo())
	if err := writeAll(root, root); err != nil {
		t.Fatal(err)
	}
	if lesson := readTree(t, filepath.Join(root, "lessons", "15-own")); len(lesson) != 1 {
		t.Errorf("the lesson's folder holds %v, want README.md alone", slices.Sorted(maps.Keys(lesson)))
	}
	l, err := index.ReadLesson(filepath.Join(root, "lessons", "index.json"), 15)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Todos) != 2 || !l.Todos[1].IsTest() || l.Todos[1].File != "run_test.go" || len(l.Todos[1].Bugs) != 1 || l.Todos[0].IsTest() {
		t.Errorf("the index's entry: %+v", l)
	}
}

// Only a test task of a lesson that starts empty names its file (elsewhere the //lesson:
// marker places a task): a _test.go file, with bugs to grade it.
func TestATaskNamesItsFileOnlyAsATestTaskOfALessonThatStartsEmpty(t *testing.T) {
	for name, c := range map[string]struct{ from, to, want string }{
		"not a test file": {"file: run_test.go", "file: run.go", "a _test.go file"},
		"no mutants":      {"    tests: [TestR1ItRuns]\n", "    tests: [TestR1ItRuns]\n    file: run_test.go\n", "lists the bugs its test must catch"},
		"not defined":     {"tests: [TestItRunsTwice]", "tests: [TestNowhere]", "TestNowhere is not a test of the stage"},
	} {
		t.Run(name, func(t *testing.T) {
			files := testTaskRepo()
			files["tracks/own/lessons.yaml"] = strings.Replace(files["tracks/own/lessons.yaml"], c.from, c.to, 1)
			root := writeRepo(t, files)
			err := writeAll(root, root)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("writeAll: %v; want an error saying %q", err, c.want)
			}
		})
	}
}
