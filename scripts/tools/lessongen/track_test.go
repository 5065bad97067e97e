package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

const testModule = "example.com/w"

// A small repository: track "pick" of lessons 1 and 2, whose lesson 2 adds a file.
var testRepo = map[string]string{
	"tracks/pick/go.mod": "module " + testModule + "/tracks/pick\n\ngo 1.26.0\n",
	"tracks/pick/pick.go": `package pick

import (
	"errors"
	"sort"
)

// Pick returns the first n names in order.
func Pick(names []string, n int) ([]string, error) {
	if n < 0 {
		return nil, errors.New("negative")
	}
	//lesson:1.1
	//lesson:stub return nil, nil
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	return sorted[:n], nil
	//lesson:end
}
`,
	"tracks/pick/pick_test.go": "package pick\n\nimport \"testing\"\n\nfunc TestPick(t *testing.T) {}\n",
	"tracks/pick/count.go": `package pick

// Count counts names.
func Count(names []string) int {
	//lesson:2.1
	//lesson:stub return 0
	return len(names)
	//lesson:end
}
`,
	"tracks/pick/count_test.go": "package pick\n\nimport \"testing\"\n\nfunc TestCount(t *testing.T) {}\n",
	"tracks/pick/lessons.yaml": `operator: Pick
lessons:
- number: 1
  folder: 01-pick
  timeout: 30s
  tasks:
  - id: 1
    title: Sort the names.
    todo: |
      Sort a copy of names and return the first n.
    hints:
    - The standard library sorts.
    - "sort.Strings sorts in place: copy first."
    tests: [TestPick]
    mistakes:
    - name: sorts-the-input
      says: the caller's names were reordered
      edits:
      - file: pick.go
        find: |
          sorted := append([]string(nil), names...)
        instead: |
          sorted := names
- number: 2
  folder: 02-pick-count
  timeout: 30s
  files: [count.go, count_test.go]
  tasks:
  - id: 1
    title: Count them.
    hints: [len., A built-in.]
    tests: [TestCount]
`,
	"docs/lesson-01.md": "# Lesson 01: Picking names\n",
	"docs/lesson-02.md": "# Lesson 02: Counting names\n",
}

func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		if err := writeFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestWriteGivesCleanSolutionsLessonsAndTheirIndex(t *testing.T) {
	root := writeRepo(t, testRepo)
	if err := writeAll(root, root); err != nil {
		t.Fatal(err)
	}
	solution1 := readTree(t, filepath.Join(root, "solutions", "01-pick"))
	if _, ok := solution1["count.go"]; ok {
		t.Error("solution 1 has count.go, which enters the track in lesson 2")
	}
	if !strings.Contains(solution1["go.mod"], "module "+testModule+"/solutions/01-pick") {
		t.Errorf("solution 1's module path:\n%s", solution1["go.mod"])
	}
	if !strings.Contains(solution1["README.md"], "Generated from tracks/pick by `make generate`") {
		t.Errorf("solution 1's README does not say where it comes from:\n%s", solution1["README.md"])
	}
	for _, dir := range []string{"solutions/01-pick", "solutions/02-pick-count", "lessons/01-pick", "lessons/02-pick-count"} {
		for rel, src := range readTree(t, filepath.Join(root, dir)) {
			if strings.Contains(src, "lesson:") || strings.Contains(src, "stage:") {
				t.Errorf("%s/%s has markers:\n%s", dir, rel, src)
			}
		}
	}
	lesson1 := readTree(t, filepath.Join(root, "lessons", "01-pick"))
	want := "\t// TODO(1): Sort the names.\n\t// Sort a copy of names and return the first n.\n\treturn nil, nil\n"
	if !strings.Contains(lesson1["pick.go"], want) || strings.Contains(lesson1["pick.go"], `"sort"`) {
		t.Errorf("lesson 1's pick.go should hold the TODO and stub, and no import only the solution uses:\n%s", lesson1["pick.go"])
	}
	lesson2 := readTree(t, filepath.Join(root, "lessons", "02-pick-count"))
	if !strings.Contains(lesson2["pick.go"], "sort.Strings(sorted)") || !strings.Contains(lesson2["count.go"], "// TODO(1): Count them.") {
		t.Errorf("lesson 2 starts from solution 1 and has its own TODO:\n%s\n%s", lesson2["pick.go"], lesson2["count.go"])
	}

	lessons, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lessons) != 2 {
		t.Fatalf("index has %d lessons, want 2", len(lessons))
	}
	got := lessons[0]
	if got.Title != "Picking names" || got.Operator != "Pick" || got.Folder != "lessons/01-pick" ||
		len(got.Todos) != 1 || got.Todos[0].File != "pick.go" || got.Todos[0].Line != 12 || got.Todos[0].Tests[0] != "TestPick" {
		t.Errorf("lesson 1's entry: %+v", got)
	}
}

func TestAMistakeIsMadeInItsStage(t *testing.T) {
	root := writeRepo(t, testRepo)
	dir := filepath.Join(root, "scratch")
	if err := writeOne(root, 1, false, 0, "sorts-the-input", dir); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dir)["pick.go"]
	if !strings.Contains(got, "\tsorted := names\n") || strings.Contains(got, "append(") {
		t.Errorf("the mistake is not made:\n%s", got)
	}
}

func TestReplaceLinesFindsOneRunWhateverItsIndentation(t *testing.T) {
	src := []byte("func f() {\n\tif x {\n\t\ty()\n\t}\n\ty()\n}\n")
	got, err := replaceLines(src, "if x {\n  y()\n}\n", "z()\n  w()\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "func f() {\n\tz()\n\t  w()\n\ty()\n}\n"; string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if _, err := replaceLines(src, "y()\n", ""); err == nil || !strings.Contains(err.Error(), "there 2 times") {
		t.Errorf("a run found twice: error %v", err)
	}
	if _, err := replaceLines(src, "q()\n", ""); err == nil || !strings.Contains(err.Error(), "there 0 times") {
		t.Errorf("a run not found: error %v", err)
	}
}

// The code and the manifest must agree, and a manifest that cannot serve says where.
func TestATrackThatDisagreesWithItsManifestIsRefused(t *testing.T) {
	for name, c := range map[string]struct {
		file, old, new, want string
	}{
		"task without a place":  {"tracks/pick/count.go", "//lesson:2.1", "//lesson:2.9", "lesson 2, task 1: no //lesson:2.1 in the code"},
		"place without a task":  {"tracks/pick/count.go", "\treturn len(names)\n", "\treturn len(names)\n\t//lesson:end\n\t//lesson:2.2\n", "//lesson:2.2: lesson 2 has no task 2"},
		"unnamed second place":  {"tracks/pick/count.go", "\treturn len(names)\n", "\treturn len(names)\n\t//lesson:end\n\t//lesson:2.1\n", "marked twice"},
		"unknown key":           {"tracks/pick/lessons.yaml", "    title: Count them.", "    titel: Count them.", "field titel not found"},
		"one hint":              {"tracks/pick/lessons.yaml", "    hints: [len., A built-in.]", "    hints: [len.]", "lesson 2, task 1: 1 hints"},
		"no tests":              {"tracks/pick/lessons.yaml", "    tests: [TestCount]", "    tests: []", "lesson 2, task 1: tests"},
		"missing test":          {"tracks/pick/lessons.yaml", "    tests: [TestCount]", "    tests: [TestCounts]", "TestCounts is not a test of the stage"},
		"missing file":          {"tracks/pick/lessons.yaml", "files: [count.go, count_test.go]", "files: [count.go, counts_test.go]", "counts_test.go is not in the track"},
		"numbered out of order": {"tracks/pick/lessons.yaml", "  - id: 1\n    title: Count", "  - id: 2\n    title: Count", "task 1 is number 2"},
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range testRepo {
				files[k] = v
			}
			if !strings.Contains(files[c.file], c.old) {
				t.Fatalf("%s lacks %q", c.file, c.old)
			}
			files[c.file] = strings.Replace(files[c.file], c.old, c.new, 1)
			root := writeRepo(t, files)
			err := writeAll(root, root)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one that says %q", err, c.want)
			}
		})
	}
}

// Two tracks that teach one API serve it from one source: the borrowing track gets the
// lender's file as its stage has it, marked as generated.
func TestABorrowedFileComesFromTheLendersStage(t *testing.T) {
	files := map[string]string{}
	for k, v := range testRepo {
		files[k] = v
	}
	files["tracks/again/go.mod"] = "module " + testModule + "/tracks/again\n\ngo 1.26.0\n"
	files["tracks/again/main.go"] = "package pick\n\nfunc main() {\n\t//lesson:3.1\n\t_ = Count(nil)\n\t//lesson:end\n}\n"
	files["tracks/again/main_test.go"] = "package pick\n\nimport \"testing\"\n\nfunc TestMain(t *testing.T) {}\n"
	files["tracks/again/lessons.yaml"] = `operator: Pick
borrows:
- track: pick
  stage: 2
  files: [count.go]
lessons:
- number: 3
  folder: 03-again
  timeout: 30s
  tasks:
  - id: 1
    title: Call it.
    hints: [One., Two.]
    tests: [TestMain]
`
	files["docs/lesson-03.md"] = "# Lesson 03: Again\n"
	root := writeRepo(t, files)
	if err := writeAll(root, root); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"tracks/again/count.go", "solutions/03-again/count.go"} {
		src, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(src), "// Code generated by lessongen from tracks/pick (stage 02); DO NOT EDIT.") ||
			!strings.Contains(string(src), "return len(names)") {
			t.Errorf("%s:\n%s", path, src)
		}
	}
}

// A lesson that moves the code to new words (a new API version) says so once, in its
// renames: the stages before it read the old words.
func TestStagesBeforeALessonReadTheWordsItRenames(t *testing.T) {
	files := map[string]string{}
	for k, v := range testRepo {
		files[k] = v
	}
	files["tracks/pick/pick.go"] = strings.Replace(files["tracks/pick/pick.go"], "// Pick returns", "// Pick (version two) returns", 1)
	files["tracks/pick/lessons.yaml"] = strings.Replace(files["tracks/pick/lessons.yaml"], "  files: [count.go, count_test.go]\n",
		"  files: [count.go, count_test.go]\n  renames:\n    version two: version one\n", 1)
	root := writeRepo(t, files)
	err := writeAll(root, root)
	if err == nil || !strings.Contains(err.Error(), "each is one word") {
		t.Fatalf("a rename of two words: error %v", err)
	}
	files["tracks/pick/pick.go"] = strings.Replace(files["tracks/pick/pick.go"], "(version two)", "(pickv2)", 1)
	files["tracks/pick/lessons.yaml"] = strings.Replace(files["tracks/pick/lessons.yaml"], "version two: version one", "pickv2: pickv1", 1)
	root = writeRepo(t, files)
	if err := writeAll(root, root); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{"solutions/01-pick": "(pickv1)", "lessons/01-pick": "(pickv1)", "solutions/02-pick-count": "(pickv2)"} {
		if got := readTree(t, filepath.Join(root, dir))["pick.go"]; !strings.Contains(got, want) {
			t.Errorf("%s/pick.go should say %s:\n%s", dir, want, got)
		}
	}
}

// A fuzz target runs its corpus as a test of go test, and checks a task as well as a
// test does.
func TestAFuzzTargetIsATestOfTheStage(t *testing.T) {
	got := testNames(map[string][]byte{
		"a_test.go": []byte("package a\n\nfunc TestA(t *testing.T) {}\n\nfunc FuzzB(f *testing.F) {}\n\nfunc FuzzC(t *testing.T) {}\n"),
		"a.go":      []byte("package a\n\nfunc TestD(t *testing.T) {}\n"),
		"b_test.go": []byte("package a\n\nfunc helper(t *testing.T) {}\n"),
	})
	want := map[string]bool{"TestA": true, "FuzzB": true}
	if !maps.Equal(got, want) {
		t.Errorf("testNames: got %v, want %v", got, want)
	}
}

// A lesson that rewrites a file whole lists it under replaces, and the stages before it
// read the earlier version from _before<N>/, which the track's module does not compile;
// a file with no version from the lesson on leaves the track there.
func TestALessonReplacesAFileTheStagesBeforeItKeep(t *testing.T) {
	files := map[string]string{}
	for k, v := range testRepo {
		files[k] = v
	}
	files["tracks/pick/_before2/pick.go"] = files["tracks/pick/pick.go"]
	files["tracks/pick/_before2/pick_test.go"] = files["tracks/pick/pick_test.go"]
	files["tracks/pick/pick.go"] = "package pick\n\n// Pick returns the first n names, as they come.\nfunc Pick(names []string, n int) []string { return names[:n] }\n"
	delete(files, "tracks/pick/pick_test.go")
	root := writeRepo(t, files)
	if err := writeAll(root, root); err == nil || !strings.Contains(err.Error(), "does not list under replaces") {
		t.Fatalf("earlier versions no lesson lists: error %v", err)
	}
	files["tracks/pick/lessons.yaml"] = strings.Replace(files["tracks/pick/lessons.yaml"], "  files: [count.go, count_test.go]\n",
		"  files: [count.go, count_test.go]\n  replaces: [pick.go, pick_test.go, gone.go]\n", 1)
	root = writeRepo(t, files)
	if err := writeAll(root, root); err == nil || !strings.Contains(err.Error(), "gone.go has no earlier version") {
		t.Fatalf("a replaced file without its earlier version: error %v", err)
	}
	files["tracks/pick/lessons.yaml"] = strings.Replace(files["tracks/pick/lessons.yaml"], ", gone.go]", "]", 1)
	root = writeRepo(t, files)
	if err := writeAll(root, root); err != nil {
		t.Fatal(err)
	}
	one, two := readTree(t, filepath.Join(root, "solutions/01-pick")), readTree(t, filepath.Join(root, "solutions/02-pick-count"))
	if !strings.Contains(one["pick.go"], "sort.Strings(sorted)") || one["pick_test.go"] == "" {
		t.Errorf("solution 01 should have the earlier pick.go and its test:\n%s", one["pick.go"])
	}
	if !strings.Contains(two["pick.go"], "as they come") || two["pick_test.go"] != "" {
		t.Errorf("solution 02 should have the new pick.go and no pick_test.go:\n%s", two["pick.go"])
	}
	for dir, tree := range map[string]map[string]string{"01": one, "02": two} {
		for rel := range tree {
			if strings.HasPrefix(rel, "_before") {
				t.Errorf("solution %s holds %s", dir, rel)
			}
		}
	}
	if lesson := readTree(t, filepath.Join(root, "lessons/01-pick"))["pick.go"]; !strings.Contains(lesson, "TODO(1): Sort the names.") {
		t.Errorf("lesson 01 should have its task in the earlier pick.go:\n%s", lesson)
	}
}
