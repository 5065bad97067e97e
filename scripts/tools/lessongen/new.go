package main

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// lessongen new scaffolds a lesson: the files a maintainer would otherwise start by hand
// in four places (CONTRIBUTING.md, "Add a lesson"). It writes what has one right shape
// and leaves what only a person can write as text that says what goes there:
//   - the lesson's block at the end of tracks/<track>/lessons.yaml, with one task;
//   - docs/lesson-NN.md in the page template, with the task list's marker lines;
//   - scripts/walkthroughs/NN.sh, sourced by scripts/run-stage.sh;
//   - the lesson's and the solution's lines in go.work.
// It refuses to write over anything that exists.

// A newLesson is what lessongen new is given.
type newLesson struct {
	track  string // tracks/<track>
	number int
	folder string // NN-name
	title  string // the page's title, after "Lesson NN: "
}

var lessonFolder = regexp.MustCompile(`^(\d\d)-[a-z0-9]+(-[a-z0-9]+)*$`)

func (l newLesson) check(root string) error {
	var problems []error
	if _, err := os.Stat(filepath.Join(root, "tracks", l.track, "lessons.yaml")); l.track == "" || err != nil {
		manifests, _ := filepath.Glob(filepath.Join(root, "tracks", "*", "lessons.yaml"))
		var tracks []string
		for _, m := range manifests {
			tracks = append(tracks, filepath.Base(filepath.Dir(m)))
		}
		problems = append(problems, fmt.Errorf("-track: %q is not a track; the tracks are %s", l.track, strings.Join(tracks, ", ")))
	}
	m := lessonFolder.FindStringSubmatch(l.folder)
	switch {
	case m == nil:
		problems = append(problems, fmt.Errorf("-folder: %q is not NN-name (two digits, then lower-case words joined by -)", l.folder))
	case m[1] != fmt.Sprintf("%02d", l.number):
		problems = append(problems, fmt.Errorf("-folder: %q starts with %s, not the lesson's number %02d", l.folder, m[1], l.number))
	}
	if strings.TrimSpace(l.title) == "" {
		problems = append(problems, errors.New("-title: the page's title is empty"))
	}
	if l.number < 1 || l.number > 99 {
		problems = append(problems, fmt.Errorf("-number: %d is not a lesson number (1 to 99)", l.number))
	}
	if len(problems) > 0 {
		return errors.Join(problems...)
	}
	// The manifests alone: a track whose newest lesson is only scaffolded has no code
	// for it yet, and would not load whole.
	manifests, err := filepath.Glob(filepath.Join(root, "tracks", "*", "lessons.yaml"))
	if err != nil {
		return err
	}
	for _, path := range manifests {
		m, err := readManifest(path)
		if err != nil {
			return err
		}
		if m.lesson(l.number) != nil {
			return fmt.Errorf("-number: lesson %d exists already, in tracks/%s/lessons.yaml", l.number, filepath.Base(filepath.Dir(path)))
		}
	}
	for _, p := range l.paths() {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			return fmt.Errorf("%s exists already: lessongen new writes over nothing", p)
		}
	}
	return nil
}

// paths are the files the scaffold creates.
func (l newLesson) paths() []string {
	return []string{lessonPage(l.number), fmt.Sprintf("scripts/walkthroughs/%02d.sh", l.number)}
}

// scaffold writes the lesson's files and prints what is left to do.
func (l newLesson) scaffold(root string) error {
	if err := l.check(root); err != nil {
		return err
	}
	manifest := filepath.Join(root, "tracks", l.track, "lessons.yaml")
	src, err := os.ReadFile(manifest)
	if err != nil {
		return err
	}
	if !bytes.HasSuffix(src, []byte("\n")) {
		src = append(src, '\n')
	}
	work := filepath.Join(root, "go.work")
	workSrc, err := os.ReadFile(work)
	if err != nil {
		return err
	}
	newWork, err := withModules(string(workSrc), "./lessons/"+l.folder, "./solutions/"+l.folder)
	if err != nil {
		return err
	}
	writes := map[string][]byte{
		manifest:                          append(src, l.manifestBlock()...),
		filepath.Join(root, l.paths()[0]): []byte(l.page()),
		filepath.Join(root, l.paths()[1]): []byte(l.walkthrough()),
		work:                              []byte(newWork),
	}
	for _, p := range slices.Sorted(maps.Keys(writes)) {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, writes[p], mode); err != nil {
			return err
		}
	}
	fmt.Printf(`Lesson %d scaffolded: tracks/%s/lessons.yaml, %s, %s, go.work.
Next (CONTRIBUTING.md, "Add a lesson"):
  1. the code in tracks/%s, with //lesson:%d.1 where task 1 is written, and its tests;
  2. the task's title, todo, hints and tests in the manifest, and its mistakes;
  3. the page's sections, the previous page's Next, the README's two tables;
  4. make generate, make verify, scripts/lessons.sh todos %s, scripts/lessons.sh mistakes %s.
`, l.number, l.track, l.paths()[0], l.paths()[1], l.track, l.number, l.track, l.track)
	return nil
}

func (l newLesson) manifestBlock() string {
	return fmt.Sprintf(`- number: %d
  folder: %s
  # go test's -timeout: six times the slowest package's green run, at least 120s.
  timeout: 120s
  tasks:
  - id: 1
    title: Say in a few words what the learner makes true.
    todo: |
      What must be true when the task is done, in one to four sentences, and the
      section that explains it. See "Concepts" in docs/lesson-%02d.md.
    hints:
    - The API to use.
    - The shape of the code.
    tests: [TestTheFirstTasksBehaviour]
`, l.number, l.folder, l.number)
}

func (l newLesson) page() string {
	return fmt.Sprintf(`# Lesson %02d: %s

What the learner builds and why it matters, a sample object and what kubectl shows once
it works. The code is in lessons/%[3]s; the finished version is solutions/%[3]s. What is
given, and what is the learner's.

## Concepts

What the tasks need and nothing else, one ### per idea, in the order the tasks meet
them; a mermaid diagram where a flow is easier seen than read.

## Your tasks

The order, and how the tests drive the tasks.

%[4]s
%[5]s

## Check your work

The checklist make check-%[6]d prints, and what make lesson-%[6]d shows.

## Common mistakes

Each marked mistake, what it breaks and the test whose message names it.

## Going further

What the tasks do not need: pitfalls no check catches, benches, history.

## Next

One sentence and the link to the next page.
`, l.number, l.title, l.folder, fmt.Sprintf(taskListBegin, l.track), taskListEnd, l.number)
}

func (l newLesson) walkthrough() string {
	return fmt.Sprintf(`# shellcheck shell=bash
# Stage %02d: %s. Sourced by scripts/run-stage.sh, which runs the manager and defines
# STAGE_DIR, start_manager, stop_manager, manager_errors and the walkthrough vocabulary
# (step, run, expect). It leaves nothing behind that would break another lesson on the
# same cluster.

step "What a user does first"
run kubectl get nodes
`, l.number, l.title)
}

// withModules adds modules to the use block of a go.work, in the order of their paths
// among the others of their folder (lessons/, solutions/).
func withModules(work string, modules ...string) (string, error) {
	lines := strings.Split(work, "\n")
	open := slices.Index(lines, "use (")
	if open < 0 {
		return "", errors.New("go.work: no use ( block")
	}
	end := open + 1
	for end < len(lines) && strings.TrimSpace(lines[end]) != ")" {
		end++
	}
	if end == len(lines) {
		return "", errors.New("go.work: the use block does not end")
	}
	// A copy: inserting into a slice of lines would write over the lines after the block.
	uses := slices.Clone(lines[open+1 : end])
	for _, m := range modules {
		if slices.ContainsFunc(uses, func(u string) bool { return strings.TrimSpace(u) == m }) {
			return "", fmt.Errorf("go.work uses %s already", m)
		}
		folder := m[:strings.LastIndex(m, "/")+1]
		at := len(uses)
		for i, u := range uses {
			u = strings.TrimSpace(u)
			if strings.HasPrefix(u, folder) && u > m {
				at = i
				break
			}
			if strings.HasPrefix(u, folder) {
				at = i + 1
			}
		}
		uses = slices.Insert(uses, at, "\t"+m)
	}
	return strings.Join(slices.Concat(lines[:open+1], uses, lines[end:]), "\n"), nil
}
