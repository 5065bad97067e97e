package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// thisCheckout is this checkout's top folder, seen from scripts/tools/workshop.
const thisCheckout = "../../.."

// diffOf runs workshop diff with args on root and returns what it printed, uncoloured.
func diffOf(root string, args ...string) (string, error) {
	var out bytes.Buffer
	err := diffStages(root, args, &out, false)
	return out.String(), err
}

// FROM=solution shows what lesson N adds to the solution before it in its own track,
// which is not solution N-1 when another track's lessons come between: lesson 13
// continues lesson 02's ImoocPod, lesson 14 lesson 09's NodePool.
func TestDiffFromSolutionStartsAtTheTracksPreviousLesson(t *testing.T) {
	for n, want := range map[string][2]string{
		"2":  {"solutions/01-imoocpod/", "lessons/02-imoocpod-workflow/"},
		"13": {"solutions/02-imoocpod-workflow/", "lessons/13-imoocpod-versions/"},
		"14": {"solutions/09-nodepool-deploy/", "lessons/14-nodepool-apply/"},
	} {
		out, err := diffOf(thisCheckout, n, "solution")
		if err != nil || !strings.Contains(out, "diff -ruN "+want[0]) || !strings.Contains(out, " "+want[1]) {
			t.Errorf("workshop diff %s solution: want %s against %s, got %v and:\n%.2000s", n, want[0], want[1], err, out)
		}
	}
}

// The first lesson of a track has no solution of its track before it: the command says
// so instead of comparing two operators.
func TestDiffFromSolutionSaysAFirstLessonStartsANewOperator(t *testing.T) {
	for n, track := range map[string]string{"1": "imoocpod", "3": "mydaemonset", "12": "clientgo"} {
		out, err := diffOf(thisCheckout, n, "solution")
		if err == nil || !strings.Contains(err.Error(), "lesson "+n+" starts a new operator, "+track) {
			t.Errorf("workshop diff %s solution: want an error saying that lesson %s starts a new operator, %s; got %v and:\n%.2000s",
				n, n, track, err, out)
		}
	}
}

// A lesson number that names no lesson is refused with the lessons there are; a FROM
// other than solution is refused too.
func TestDiffNamesTheLessonsForAMissingOne(t *testing.T) {
	_, err := diffOf(thisCheckout, "99")
	if err == nil || !strings.Contains(err.Error(), "there is no lessons/99-*") || !strings.Contains(err.Error(), "01-imoocpod") {
		t.Errorf("workshop diff 99: want an error naming lessons/99-* and the lessons, got %v", err)
	}
	_, err = diffOf(thisCheckout, "2", "solutions")
	if err == nil || !strings.Contains(err.Error(), "FROM=solutions: FROM takes one value, solution") {
		t.Errorf("workshop diff 2 solutions: want an error saying FROM takes one value, got %v", err)
	}
	_, err = diffOf(thisCheckout, "two")
	if err == nil || !strings.Contains(err.Error(), "lesson numbers are numbers") {
		t.Errorf("workshop diff two: want an error saying lesson numbers are numbers, got %v", err)
	}
}

// writeTestTree writes files (slash-separated path -> contents) under dir.
func writeTestTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// stageFiles is a small stage whose module is module, whose controller imports imports
// and whose Reconcile returns result: everything a diff should ignore differs between
// two calls with different arguments, except what body says.
func stageFiles(module, imports, body string) map[string]string {
	return map[string]string{
		"go.mod":    "module " + module + "\n",
		"go.sum":    "example.com/" + module + " v1 h1:\n",
		"README.md": "# " + module + "\n",
		"internal/controller/controller.go": "package controller\n\nimport (\n" + imports + ")\n\n" +
			"// Reconcile uses " + module + "/api.\nfunc Reconcile() error {\n\t" + body + "\n}\n",
		"internal/controller/README.md":           "notes of " + module + "\n",
		"api/v1/zz_generated.deepcopy.go":         "package v1 // " + module + "\n",
		"api/v1/applyconfiguration/utils.go":      "package applyconfiguration // " + module + "\n",
		"config/crd/bases/apps.workshop.dev.yaml": "# " + module + "\n",
		"config/rbac/role.yaml":                   "# " + module + "\n",
		"config/webhook/manifests.yaml":           "# " + module + "\n",
	}
}

// The diff leaves out what only differs because two stages are two modules with
// generated files: README.md, go.sum, controller-gen's outputs, the module path, the
// contents of import blocks; and keeps the code.
func TestDiffShowsOnlyCode(t *testing.T) {
	root := t.TempDir()
	const prefix = "github.com/kube-workshop/operator-workshop/"
	writeTestTree(t, filepath.Join(root, "lessons", "01-demo"),
		stageFiles(prefix+"lessons/01-demo", "\t\"errors\"\n", `return errors.New("TODO")`))
	writeTestTree(t, filepath.Join(root, "solutions", "01-demo"),
		stageFiles(prefix+"solutions/01-demo", "\t\"context\"\n\t\"fmt\"\n", `return nil`))

	out, err := diffOf(root, "1")
	if err != nil {
		t.Fatalf("workshop diff 1: %v", err)
	}
	if !strings.Contains(out, "diff -ruN lessons/01-demo/internal/controller/controller.go solutions/01-demo/internal/controller/controller.go") {
		t.Errorf("want the controller compared under the stages' names, got:\n%s", out)
	}
	var changed []string
	for line := range strings.Lines(out) {
		if (strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")) &&
			!strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "+++") {
			changed = append(changed, strings.TrimSpace(line))
		}
	}
	want := []string{"-\treturn errors.New(\"TODO\")", "+\treturn nil"}
	if !slices.Equal(changed, want) {
		t.Errorf("want only the changed code line, %q, got %q in:\n%s", want, changed, out)
	}
	if strings.Count(out, "diff -ruN") != 1 {
		t.Errorf("want one file compared, got:\n%s", out)
	}
}

// An import block becomes one line wherever it is, and the code around it stays.
func TestCollapseImportBlocks(t *testing.T) {
	src := "package x\n\nimport (\n\t\"fmt\"\n\n\tfoo \"example.com/foo\"\n)\n\nimport \"os\"\n\nvar _ = fmt.Sprint(foo.X, os.Args)\n"
	want := "package x\n\nimport (...)\n\nimport \"os\"\n\nvar _ = fmt.Sprint(foo.X, os.Args)\n"
	if got := string(collapseImportBlocks([]byte(src))); got != want {
		t.Errorf("collapseImportBlocks:\n%q\nwant\n%q", got, want)
	}
}

// On a terminal the diff is coloured as GNU diff --color colours it (Apple's diff has no
// colours); into a pipe or a file it is plain.
func TestDiffColoursOnlyForATerminal(t *testing.T) {
	var coloured, plain bytes.Buffer
	if err := diffStages(thisCheckout, []string{"2"}, &coloured, true); err != nil {
		t.Fatal(err)
	}
	if err := diffStages(thisCheckout, []string{"2"}, &plain, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\033[") {
		t.Errorf("a diff into a pipe has escape codes:\n%.500q", plain.String())
	}
	for _, want := range []string{"\033[1mdiff -ruN ", "\033[1m--- ", "\033[1m+++ ", "\033[36m@@ ", "\033[31m-", "\033[32m+"} {
		if !strings.Contains(coloured.String(), want) {
			t.Errorf("a diff on a terminal has no %q:\n%.800q", want, coloured.String())
		}
	}
	uncoloured := strings.NewReplacer(colourHeader, "", colourHunk, "", colourRemove, "", colourAdd, "", colourOff, "").Replace(coloured.String())
	if uncoloured != plain.String() {
		t.Errorf("the coloured diff, without its colours, is not the plain diff")
	}
}

// A learner writes neither controller-gen's output nor dist/, which scripts/dist.sh
// derives from config/: lesson 09's dist/ lacks the RBAC and the flag its tasks add,
// and make diff-9 must show the tasks, not their echo in dist/.
func TestDiffLeavesOutWhatIsDerived(t *testing.T) {
	out, err := diffOf(thisCheckout, "9")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "diff -ruN ") {
			files = append(files, line)
		}
	}
	headers := strings.Join(files, "")
	for _, derived := range []string{"/dist/", "config/rbac/role.yaml", "zz_generated.deepcopy.go"} {
		if strings.Contains(headers, derived) {
			t.Errorf("make diff-9 shows %s, which the learner does not write:\n%s", derived, headers)
		}
	}
	if !strings.Contains(headers, "cmd/main.go") {
		t.Errorf("make diff-9 does not show cmd/main.go, where its tasks are:\n%.3000s", out)
	}
}
