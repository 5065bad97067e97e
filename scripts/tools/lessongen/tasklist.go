package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// A task's words live once, in its track's lessons.yaml: the TODO in the code, make
// hint-N and the page's task list all come from there. The page holds the list between
// two marker lines, which make generate fills and make verify checks; the words around
// the markers are the page's own.
const (
	taskListBegin = "<!-- The task list: make generate writes it from tracks/%s/lessons.yaml; edit the tasks there. -->"
	taskListEnd   = "<!-- End of the task list. -->"
)

// A page reference in a TODO: See "Section" in docs/lesson-NN.md, or See "One" and
// "Other" in docs/lesson-NN.md.
var (
	seeSections = regexp.MustCompile(`("[^"]+"(?:(?:, | and | or )"[^"]+")*) in docs/(lesson-\d\d\.md)`)
	quotedTitle = regexp.MustCompile(`"([^"]+)"`)
)

// markdownEscaper keeps a TODO's text as written on the page: <mds> is not an HTML tag,
// *T not an emphasis, [0] not a link. Backquotes stay code.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "<", `\<`, "[", `\[`, "]", `\]`)

// linkSections makes each section a TODO names a link, on the page or to another.
func linkSections(text, page string) string {
	return seeSections.ReplaceAllStringFunc(text, func(m string) string {
		sub := seeSections.FindStringSubmatch(m)
		prefix := ""
		if sub[2] != page {
			prefix = sub[2]
		}
		return quotedTitle.ReplaceAllStringFunc(sub[1], func(q string) string {
			title := strings.Trim(q, `"`)
			return fmt.Sprintf("[%s](%s#%s)", title, prefix, slug(title))
		})
	})
}

// taskList is the list lesson l's page shows: for each task its number, title and file,
// what must be true when it is done (its TODO text), and the tests that prove it. The
// hints are not there: make hint-N gives them one at a time.
func taskList(l index.Lesson, spec *lessonSpec) string {
	var b strings.Builder
	page := filepath.Base(lessonPage(l.Number))
	for i, t := range spec.Tasks {
		file := ""
		if i < len(l.Todos) && l.Todos[i].ID == t.ID {
			file = l.Todos[i].File
		}
		todo := linkSections(markdownEscaper.Replace(strings.Join(strings.Fields(t.Todo), " ")), page)
		label := "Test"
		if len(t.Tests) > 1 {
			label = "Tests"
		}
		text := fmt.Sprintf("**%s** In `%s`: %s *%s:* `%s`.", t.Title, file, todo, label, strings.Join(t.Tests, "`, `"))
		if spec.Empty && len(t.Mutants) > 0 {
			// A test task of a lesson that starts empty: the learner writes the test in
			// the module they scaffolded, at the file the solution has it.
			text = fmt.Sprintf("**%s** In `%s`, *you write:* `%s`, graded by %d known bugs.", t.Title, file, strings.Join(t.Tests, "`, `"), len(t.Mutants))
		} else if spec.Empty {
			// A requirement has no place in the code: the suite grades it from outside.
			text = fmt.Sprintf("**R%d %s** *Graded by:* `%s`, in `%s`.", t.ID, t.Title, strings.Join(t.Tests, "`, `"), suiteDir)
		} else if len(t.Mutants) > 0 {
			// A test task: the learner writes the test, which known bugs grade.
			todo = strings.ReplaceAll(todo, testingPage, "["+testingPage+"]("+filepath.Base(testingPage)+")")
			text = fmt.Sprintf("**%s** In `%s`: %s *You write:* `%s`, graded by %d known bugs.", t.Title, file, todo, strings.Join(t.Tests, "`, `"), len(t.Mutants))
		}
		for j, line := range wrap(text, 88) {
			if j == 0 {
				fmt.Fprintf(&b, "%d. %s\n", t.ID, line)
				continue
			}
			fmt.Fprintf(&b, "   %s\n", line)
		}
	}
	return b.String()
}

// testingPage is the page on testing operators, which the test tasks point to.
const testingPage = "docs/testing.md"

// slug is the anchor GitHub gives a heading: lower case, punctuation dropped but for
// hyphens, spaces made hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wrap cuts text into lines of at most width characters, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// syncTaskLists compares every lesson page's task list with its manifest, and with write
// rewrites the lists that drifted.
func syncTaskLists(root string, write bool) ([]docDrift, error) {
	lessons, err := index.Read(filepath.Join(root, "lessons", "index.json"))
	if err != nil {
		return nil, err
	}
	tracks, err := loadTracks(root)
	if err != nil {
		return nil, err
	}
	var drifts []docDrift
	for _, l := range lessons {
		var t *track
		for _, candidate := range tracks {
			if candidate.manifest.lesson(l.Number) != nil {
				t = candidate
			}
		}
		if t == nil {
			return nil, fmt.Errorf("lessons/index.json: no track teaches lesson %d", l.Number)
		}
		page := lessonPage(l.Number)
		src, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			return nil, err
		}
		begin := fmt.Sprintf(taskListBegin, t.name)
		text := string(src)
		start := strings.Index(text, begin+"\n")
		end := strings.Index(text, taskListEnd)
		if start < 0 || end < start {
			drifts = append(drifts, docDrift{Page: page, Problem: fmt.Sprintf(
				"has no generated task list: put the lines\n\t%s\n\t%s\nunder \"## Your tasks\", then run make generate", begin, taskListEnd)})
			continue
		}
		body := start + len(begin) + 1
		want := taskList(l, t.manifest.lesson(l.Number))
		if text[body:end] == want {
			continue
		}
		if write {
			if err := os.WriteFile(filepath.Join(root, page), []byte(text[:body]+want+text[end:]), 0o644); err != nil {
				return nil, err
			}
			continue
		}
		line := strings.Count(text[:body], "\n") + 1
		drifts = append(drifts, docDrift{Page: page, Line: line,
			Problem: fmt.Sprintf("the task list is not the one tracks/%s/lessons.yaml gives: run make generate", t.name)})
	}
	return drifts, nil
}
