package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// The lesson pages (docs/lesson-NN.md) show make check-N's checklist as it printed it:
// each task's title and where its TODO stands. Those come from lessons.yaml and the
// generated lesson, so the pages are brought in line by make generate (lessongen docs)
// and checked by make verify (lessongen lint), never kept in step by hand.
var (
	checklistRow = regexp.MustCompile(`^  (not run|failing|done) +TODO\((\d+)\) `)
	tasksDone    = regexp.MustCompile(`\b(\d+) of \d+ tasks done\b`)
	// A test a page names in backquotes; `TestSync...` names a family, not a test.
	docTest = regexp.MustCompile("`(Test[A-Z][A-Za-z0-9_]*)(\\.\\.\\.)?")
)

// lessonPage is the path of lesson n's page, from the repository's top folder.
func lessonPage(n int) string { return fmt.Sprintf("docs/lesson-%02d.md", n) }

// A docDrift is a line of a lesson's page that says something else than the lesson.
type docDrift struct {
	Page    string // docs/lesson-NN.md
	Line    int
	Problem string
	Want    string // the line make generate writes, or "" when it cannot
}

func (d docDrift) String() string {
	if d.Line == 0 {
		return fmt.Sprintf("%s: %s", d.Page, d.Problem)
	}
	if d.Want == "" {
		return fmt.Sprintf("%s:%d: %s", d.Page, d.Line, d.Problem)
	}
	return fmt.Sprintf("%s:%d: %s; make generate writes:\n\t%s", d.Page, d.Line, d.Problem, d.Want)
}

// syncDocs compares every lesson's page with lessons/index.json and the lesson's
// solution (its tests, and the lines of its test files that excerpts show), and returns
// each line that drifted. With write, it rewrites the lines it
// can (checklist rows, task counts) in place.
func syncDocs(root string, write bool) ([]docDrift, error) {
	lessons, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	if err != nil {
		return nil, err
	}
	var drifts []docDrift
	for _, l := range lessons {
		page := lessonPage(l.Number)
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		testFiles, err := solutionTestFiles(filepath.Join(root, "solutions", filepath.Base(l.Folder)))
		if err != nil {
			return nil, err
		}
		if l.StartsEmpty {
			// The page names the grading suite's tests, one per requirement.
			suite, err := suiteFiles(root)
			if err != nil {
				return nil, err
			}
			maps.Copy(testFiles, suite)
		}
		tests := testNames(testFiles)
		lines := strings.Split(string(src), "\n")
		samples, err := sampleDrifts(page, lines, testFiles)
		if err != nil {
			return nil, err
		}
		drifts = append(drifts, samples...)
		changed := false
		for i, line := range lines {
			want, problem := docLine(l, line, tests)
			if problem == "" {
				continue
			}
			drifts = append(drifts, docDrift{Page: page, Line: i + 1, Problem: problem, Want: want})
			if want != "" {
				lines[i], changed = want, true
			}
		}
		if write && changed {
			if err := os.WriteFile(filepath.Join(root, page), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return drifts, nil
}

// docLine checks one line of lesson l's page: a checklist row must be the one make
// check-N prints, a count of tasks must count the lesson's, and a test named must be one
// of the solution's tests. It returns the line as it should read (or "" when only a
// person can fix it) and what is wrong, or "" when nothing is.
func docLine(l index.Lesson, line string, tests map[string]bool) (string, string) {
	if m := checklistRow.FindStringSubmatch(line); m != nil {
		id, _ := strconv.Atoi(m[2])
		for i, t := range l.Todos {
			if t.ID == id {
				if want := l.Row(i, m[1]); line != want {
					return want, fmt.Sprintf("the checklist row of TODO(%d) is not what make check-%d prints", id, l.Number)
				}
				return "", ""
			}
		}
		return "", fmt.Sprintf("lesson %d has no task %d", l.Number, id)
	}
	if strings.Contains(line, "tasks done") && (strings.Contains(line, filepath.Base(l.Folder)) || strings.HasPrefix(line, "warning: ")) {
		want := tasksDone.ReplaceAllString(line, fmt.Sprintf("$1 of %d tasks done", len(l.Todos)))
		if want != line {
			return want, fmt.Sprintf("lesson %d has %d tasks", l.Number, len(l.Todos))
		}
	}
	for _, m := range docTest.FindAllStringSubmatch(line, -1) {
		if m[2] == "" && m[1] != "TestMain" && !tests[m[1]] {
			return "", fmt.Sprintf("%s is not a test of solution %02d", m[1], l.Number)
		}
	}
	return "", ""
}

// solutionTestFiles returns the test files of the module at dir, by path.
func solutionTestFiles(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		files[path], err = os.ReadFile(path)
		return err
	})
	return files, err
}

// A page shows what a failing test prints, an excerpt of go test's output: the test,
// then the file and line of the failed assertion. A change to the test file moves the
// lines under the excerpt, and the page would send the learner to other code.
var (
	sampleFail = regexp.MustCompile(`^\s*--- FAIL: (Test[A-Za-z0-9_]*)`)
	sampleAt   = regexp.MustCompile(`^\s+([A-Za-z0-9_]+_test\.go):(\d+):$`)
)

// sampleDrifts checks the failures a page (its lines) shows against the test files of
// the lesson's solution (files, by path): each file:line must be in the body of the test
// the FAIL line above it names (a subtest's, in its test's).
func sampleDrifts(page string, lines []string, files map[string][]byte) ([]docDrift, error) {
	type span struct{ from, to int }
	spans := map[string][]span{} // by "file.go TestName"
	for path, src := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				key := filepath.Base(path) + " " + fn.Name.Name
				spans[key] = append(spans[key], span{fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line})
			}
		}
	}
	var drifts []docDrift
	test := ""
	for i, line := range lines {
		if m := sampleFail.FindStringSubmatch(line); m != nil {
			test = m[1]
			continue
		}
		m := sampleAt.FindStringSubmatch(line)
		if m == nil || test == "" {
			continue
		}
		at, _ := strconv.Atoi(m[2]) // digits, as sampleAt says
		found := spans[m[1]+" "+test]
		if len(found) == 0 {
			drifts = append(drifts, docDrift{Page: page, Line: i + 1, Problem: fmt.Sprintf(
				"the excerpt shows %s failing in %s, which has no such test", test, m[1])})
			continue
		}
		if !slices.ContainsFunc(found, func(s span) bool { return s.from <= at && at <= s.to }) {
			drifts = append(drifts, docDrift{Page: page, Line: i + 1, Problem: fmt.Sprintf(
				"%s:%d is not in %s (lines %d-%d): the test file changed since the excerpt was taken; run the check again and copy what it prints",
				m[1], at, test, found[0].from, found[0].to)})
		}
	}
	return drifts, nil
}

// A page's "Common mistakes" names the mistakes its checks catch, each with the words the
// check prints: `*Caught by* `TestX` ("words")`. That is a promise the marked-mistakes
// proof keeps (scripts/lessons.sh mistakes makes each mistake of lessons.yaml and
// requires its words in the checklist), so the two must say the same: every marked
// mistake is on its page with its words, and every catch the page claims is a marked
// mistake's. A pitfall no check catches belongs under "Going further" (its "Other
// pitfalls"), without words.
var caughtBy = regexp.MustCompile("\\*Caught by\\*[^(]*?\\(\"((?:[^\"]|\"[^\"(]*\")*)\"\\)")

// catchDrifts compares the "Common mistakes" of lesson l's page (src) with the words of
// its marked mistakes (says, by name), and returns what differs. A page may quote more of
// the failure than the words the proof requires, not less.
func catchDrifts(page, src string, says map[string]string) []docDrift {
	section := func(title string) string {
		_, after, ok := strings.Cut(src, "\n## "+title+"\n")
		if !ok {
			return ""
		}
		body, _, _ := strings.Cut(after, "\n## ")
		return strings.Join(strings.Fields(body), " ")
	}
	common, other := section("Common mistakes"), section("Going further")
	var drifts []docDrift
	names := slices.Sorted(maps.Keys(says))
	promised := map[string]bool{}
	for _, name := range names {
		promised[says[name]] = true
		switch {
		case !strings.Contains(common, says[name]):
			drifts = append(drifts, docDrift{Page: page, Problem: fmt.Sprintf(
				"the mistake %s is caught, saying %q, but Common mistakes does not say so", name, says[name])})
		case strings.Contains(other, says[name]):
			drifts = append(drifts, docDrift{Page: page, Problem: fmt.Sprintf(
				"Going further quotes %q, which the checks catch (the mistake %s): say it under Common mistakes", says[name], name)})
		}
	}
	for _, m := range caughtBy.FindAllStringSubmatch(common+" "+other, -1) {
		kept := false
		for words := range promised {
			kept = kept || strings.Contains(m[1], words)
		}
		if !kept {
			drifts = append(drifts, docDrift{Page: page, Problem: fmt.Sprintf(
				"the page says a check catches a mistake saying %q, but no marked mistake of lessons.yaml is caught by those words", m[1])})
		}
	}
	return drifts
}

// syncCatches runs catchDrifts over every lesson's page.
func syncCatches(root string) ([]docDrift, error) {
	var drifts []docDrift
	var failed error
	err := eachLesson(root, func(_ *track, l *lessonSpec) {
		page := lessonPage(l.Number)
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			failed = err
			return
		}
		says := map[string]string{}
		for _, m := range l.allMistakes() {
			says[m.Name] = strings.Join(strings.Fields(m.Says), " ")
		}
		drifts = append(drifts, catchDrifts(page, string(src), says)...)
	})
	return drifts, errors.Join(err, failed)
}
