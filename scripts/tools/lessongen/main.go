// Command lessongen writes the solutions and lessons of the workshop's tracks.
//
// A track is one operator taught over several lessons: tracks/<name> holds its last stage
// as a Go module, with markers that say what the earlier stages and the lessons have
// instead (source.go), and tracks/<name>/lessons.yaml holds each lesson's tasks: their
// TODO text, hints, tests and the mistakes learners make (manifest.go). From them:
//
//	lessongen write [-out DIR]                 every solutions/NN-name and lessons/NN-name,
//	                                           lessons/index.json, and the files a track
//	                                           borrows from another
//	lessongen lesson -to DIR [-done K] N       lesson N alone (make reset-N); with -done,
//	                                           its tasks 1 to K solved
//	lessongen solution -to DIR [-mistake M] N  solution N alone; with -mistake, mistake M made
//	lessongen tracks                           one line per lesson: track, folder, tasks
//	lessongen mistakes                         one line per mistake: folder, task, name, words
//	lessongen lint                             hints and TODO texts name what their
//	                                           solutions have; the lesson pages' checklists
//	                                           and tests are the lessons', their times the
//	                                           recorded ones (docs/check-times.tsv)
//	lessongen docs                             rewrites the checklists of the lesson pages
//	                                           (docs/lesson-NN.md) as make check-N prints them,
//	                                           and their measured times and the README's
//
// -root is the repository's top folder (default: the current folder). Generated folders
// are replaced entirely; what controller-gen derives (scripts/generate.sh) is left to it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

func main() {
	root := flag.String("root", ".", "the repository's top folder")
	flag.Usage = usage
	flag.Parse()
	if flag.NArg() < 1 {
		usage()
	}
	cmd, args := flag.Arg(0), flag.Args()[1:]
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	out := fs.String("out", *root, "write: the checkout-shaped folder to write into")
	to := fs.String("to", "", "lesson, solution: the folder to write")
	done := fs.Int("done", 0, "lesson: leave the tasks numbered up to this one solved")
	mistake := fs.String("mistake", "", "solution: make this mistake (see lessons.yaml)")
	newTrack := fs.String("track", "", "new: the track the lesson joins (tracks/<track>)")
	newNumber := fs.Int("number", 0, "new: the lesson's number")
	newFolder := fs.String("folder", "", "new: the lesson's folder, NN-name")
	newTitle := fs.String("title", "", "new: the page's title")
	check := fs.Bool("check", false, "words: fail when a page departs from the template or a budget is passed")
	if err := fs.Parse(args); err != nil {
		usage()
	}
	var err error
	switch cmd {
	case "write":
		err = writeAll(*root, *out)
	case "lesson", "solution":
		var n int
		if n, err = strconv.Atoi(fs.Arg(0)); err != nil || fs.NArg() != 1 || *to == "" {
			usage()
		}
		err = writeOne(*root, n, cmd == "lesson", *done, *mistake, *to)
	case "tracks":
		err = printTracks(*root)
	case "mistakes":
		err = printMistakes(*root)
	case "mutants":
		var n int
		if n, err = strconv.Atoi(fs.Arg(0)); err != nil || fs.NArg() != 1 {
			usage()
		}
		err = printMutants(*root, n, os.Stdout)
	case "lint":
		err = lint(*root)
	case "docs":
		err = writeDocs(*root)
	case "new":
		err = newLesson{track: *newTrack, number: *newNumber, folder: *newFolder, title: *newTitle}.scaffold(*root)
	case "words":
		err = printWords(*root, os.Stdout, *check)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "lessongen: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: lessongen [-root DIR] write [-out DIR]
       lessongen [-root DIR] lesson -to DIR [-done K] N
       lessongen [-root DIR] solution -to DIR [-mistake NAME] N
       lessongen [-root DIR] mutants N
       lessongen [-root DIR] words [-check]
       lessongen [-root DIR] new -track T -number N -folder NN-name -title TITLE
       lessongen [-root DIR] tracks|mistakes|lint|docs`)
	os.Exit(2)
}

// writeAll writes every solution and lesson of every track under out, lessons/index.json,
// and the files each track borrows from another into out/tracks.
func writeAll(root, out string) error {
	tracks, err := loadTracks(root)
	if err != nil {
		return err
	}
	var entries []index.Lesson
	for _, t := range tracks {
		borrowed, err := borrowedFiles(root, t)
		if err != nil {
			return err
		}
		for rel, src := range borrowed {
			if err := writeFile(filepath.Join(out, "tracks", t.name, rel), src, t.mode(rel)); err != nil {
				return err
			}
		}
		for i := range t.manifest.Lessons {
			l := &t.manifest.Lessons[i]
			sol, err := t.write(root, target{Stage: l.Number}, "", borrowed, filepath.Join(out, "solutions", l.Folder))
			if err != nil {
				return err
			}
			st, err := t.write(root, target{Stage: l.Number, Lesson: true}, "", borrowed, filepath.Join(out, "lessons", l.Folder))
			if err != nil {
				return err
			}
			entry, err := t.indexEntry(root, l, st, sol)
			if err != nil {
				return err
			}
			entries = append(entries, entry)
		}
	}
	return index.Write(filepath.Join(out, "lessons", "index.json"), entries)
}

// writeOne writes lesson or solution n alone into the folder to.
func writeOne(root string, n int, isLesson bool, done int, mistake, to string) error {
	t, err := trackOf(root, n)
	if err != nil {
		return err
	}
	borrowed, err := borrowedFiles(root, t)
	if err != nil {
		return err
	}
	_, err = t.write(root, target{Stage: n, Lesson: isLesson, Done: done}, mistake, borrowed, to)
	return err
}

// trackOf returns the track that teaches lesson n.
func trackOf(root string, n int) (*track, error) {
	tracks, err := loadTracks(root)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, t := range tracks {
		if t.manifest.lesson(n) != nil {
			return t, nil
		}
		for _, l := range t.manifest.Lessons {
			all = append(all, strconv.Itoa(l.Number))
		}
	}
	return nil, fmt.Errorf("there is no lesson %d; the lessons are %s", n, strings.Join(all, ", "))
}

// write renders the target, makes the mistake if one is named, and writes the result to
// the folder dir, with the README that says where it comes from.
func (t *track) write(root string, tg target, mistake string, borrowed map[string][]byte, dir string) (*stage, error) {
	st, err := t.render(tg, borrowed)
	if err != nil {
		return nil, err
	}
	kind := "solutions"
	if tg.Lesson {
		kind = "lessons"
	}
	if mistake != "" {
		m, lesson := t.manifest.mistake(mistake)
		if m == nil {
			return nil, fmt.Errorf("%s has no mistake %s", t.manifestPath(), mistake)
		}
		if lesson > tg.Stage {
			return nil, fmt.Errorf("mistake %s is made in lesson %d, after stage %d", mistake, lesson, tg.Stage)
		}
		if err := st.makeMistake(m); err != nil {
			return nil, err
		}
	}
	if err := st.finish(t.module, t.moduleOf(kind, st.folder)); err != nil {
		return nil, err
	}
	readme, err := t.readme(root, tg, st.folder)
	if err != nil {
		return nil, err
	}
	st.files["README.md"] = readme
	return st, st.writeTo(dir, t.mode)
}

// mode returns the permissions of a source file, for its copies.
func (t *track) mode(rel string) os.FileMode {
	info, err := os.Stat(filepath.Join(t.dir, filepath.FromSlash(rel)))
	if err != nil {
		return 0o644
	}
	return info.Mode().Perm()
}

// readme says in a generated folder what it is and where it comes from.
func (t *track) readme(root string, tg target, folder string) ([]byte, error) {
	title, err := lessonTitle(root, tg.Stage)
	if err != nil {
		return nil, err
	}
	n := fmt.Sprintf("%02d", tg.Stage)
	var b strings.Builder
	empty := t.manifest.lesson(tg.Stage).Empty
	switch {
	case tg.Lesson && empty:
		fmt.Fprintf(&b, "# Lesson %s: %s\n\nThis folder is yours, and empty on purpose: docs/lesson-%s.md gives the spec and every step,\n", n, title, n)
		fmt.Fprintf(&b, "from `kubebuilder init` on (run with GOWORK=off: the workshop's go.work does not list this module).\n")
		fmt.Fprintf(&b, "`make check-%d` grades it against the spec, one row per requirement; `make hint-%d T=k` gives a hint for requirement k.\n", tg.Stage, tg.Stage)
		fmt.Fprintf(&b, "\nOnly this README is generated (by `make generate`, from tracks/%s); everything else you write.\n", t.name)
		return []byte(b.String()), nil
	case tg.Lesson:
		fmt.Fprintf(&b, "# Lesson %s: %s\n\nRead docs/lesson-%s.md, then find your tasks: `grep -rn 'TODO(' lessons/%s`.\n", n, title, n, folder)
		fmt.Fprintf(&b, "`make check-%d` checks them, `make hint-%d` gives a hint, `make reset-%d` starts over.\n", tg.Stage, tg.Stage, tg.Stage)
	default:
		fmt.Fprintf(&b, "# Solution %s: %s\n\nThe finished code of lesson %s, explained in docs/lesson-%s.md.\n", n, title, n, n)
	}
	fmt.Fprintf(&b, "\nGenerated from tracks/%s by `make generate`: edit the track, not this folder.\n", t.name)
	return []byte(b.String()), nil
}

// indexEntry is the lesson's entry of lessons/index.json, from its stage st and its
// solution's sol.
func (t *track) indexEntry(root string, l *lessonSpec, st, sol *stage) (index.Lesson, error) {
	title, err := lessonTitle(root, l.Number)
	if err != nil {
		return index.Lesson{}, err
	}
	if l.Empty {
		// The tests of its requirements are the grading suite's, not the stage's.
		suite, err := suiteFiles(root)
		if err != nil {
			return index.Lesson{}, err
		}
		// A test task's test is the solution's, at the file it names.
		for _, task := range l.Tasks {
			if src, ok := sol.files[task.File]; ok && task.File != "" {
				suite[task.File] = src
			}
		}
		st = &stage{folder: st.folder, files: suite}
	}
	todos, err := st.tasks(l)
	if err != nil {
		return index.Lesson{}, err
	}
	return index.Lesson{Number: l.Number, Title: title, Operator: t.manifest.Operator, Folder: "lessons/" + l.Folder, Timeout: l.Timeout,
		StartsEmpty: l.Empty, Todos: todos}, nil
}

// borrowedFiles renders the files a track borrows, as the lending track's stage has them,
// moved to the borrowing track's module path.
func borrowedFiles(root string, t *track) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, b := range t.manifest.Borrows {
		lender, err := loadTrack(root, b.Track)
		if err != nil {
			return nil, err
		}
		st, err := lender.render(target{Stage: b.Stage}, nil)
		if err != nil {
			return nil, err
		}
		if err := st.finish(lender.module, t.module); err != nil {
			return nil, err
		}
		for _, rel := range b.Files {
			src, ok := st.files[rel]
			if !ok {
				return nil, fmt.Errorf("%s: borrows %s from track %s, whose stage %d has no such file", t.manifestPath(), rel, b.Track, b.Stage)
			}
			header := fmt.Sprintf("// Code generated by lessongen from tracks/%s (stage %02d); DO NOT EDIT.\n\n", b.Track, b.Stage)
			files[rel] = append([]byte(header), src...)
		}
	}
	return files, nil
}

func writeFile(path string, src []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, src, mode)
}

// printTracks prints one line per lesson: its track, its folder and its number of tasks.
func printTracks(root string) error {
	return eachLesson(root, func(t *track, l *lessonSpec) {
		fmt.Printf("%s\t%s\t%d\n", t.name, l.Folder, len(l.Tasks))
	})
}

// printMistakes prints one line per mistake: the folder of the stage it is made in, the
// task it belongs to (0: the lesson's), its name and the words its test must print.
func printMistakes(root string) error {
	return eachLesson(root, func(_ *track, l *lessonSpec) {
		for task, m := range l.allMistakes() {
			fmt.Printf("%s\t%d\t%s\t%s\n", l.Folder, task, m.Name, m.Says)
		}
	})
}

// eachLesson calls f with every lesson of every track of the repository at root, in the
// tracks' order.
func eachLesson(root string, f func(*track, *lessonSpec)) error {
	tracks, err := loadTracks(root)
	if err != nil {
		return err
	}
	for _, t := range tracks {
		for i := range t.manifest.Lessons {
			f(t, &t.manifest.Lessons[i])
		}
	}
	return nil
}

// lint prints every identifier, file, import alias or doc section that a TODO or a hint
// names and the lesson's solution lacks (lint.go).
func lint(root string) error {
	problems, err := lintRepository(root)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	drifts, err := docDrifts(root, false)
	if err != nil {
		return err
	}
	for _, d := range drifts {
		fmt.Fprintln(os.Stderr, d)
	}
	broken, err := ruleProblems(root)
	if err != nil {
		return err
	}
	names, err := pageProblems(root, filepath.Join(root, "docs"))
	if err != nil {
		return err
	}
	for _, p := range names {
		fmt.Fprintln(os.Stderr, p)
	}
	for _, p := range broken {
		fmt.Fprintln(os.Stderr, p)
	}
	switch {
	case len(names) > 0:
		return fmt.Errorf("%d names in the lesson pages are in no code of the workshop or its libraries: fix the page, or link a name from elsewhere to its source", len(names))
	case len(broken) > 0:
		return fmt.Errorf("%d breaks of the lessons' rules (test order, mistakes, walkthrough hints): fix the track", len(broken))
	case len(problems) > 0:
		return fmt.Errorf("%d texts of the lessons name what their solutions lack: fix them in tracks/*/lessons.yaml", len(problems))
	case len(drifts) > 0:
		return fmt.Errorf("%d lines of the lesson pages say what the lessons do not: run make generate, or fix the page", len(drifts))
	}
	return nil
}

// writeDocs rewrites the lines of the lesson pages and the README that make generate
// can bring in line, and prints those it cannot.
func writeDocs(root string) error {
	drifts, err := docDrifts(root, true)
	if err != nil {
		return err
	}
	for _, d := range drifts {
		if d.Want == "" {
			fmt.Fprintln(os.Stderr, d)
		}
	}
	return nil
}

// docDrifts returns every line of the lesson pages and the README that says what the
// lessons do not: checklist rows, tests, excerpts of failures, catches (syncDocs,
// syncCatches) and measured times (syncTimes). With write, the lines it can bring in line are rewritten.
func docDrifts(root string, write bool) ([]docDrift, error) {
	var all []docDrift
	for _, sync := range []func() ([]docDrift, error){
		func() ([]docDrift, error) { return syncDocs(root, write) },
		func() ([]docDrift, error) { return syncCatches(root) },
		func() ([]docDrift, error) { return syncTimes(root, write) },
		func() ([]docDrift, error) { return syncTaskLists(root, write) },
	} {
		drifts, err := sync()
		if err != nil {
			return nil, err
		}
		all = append(all, drifts...)
	}
	return all, nil
}

// suiteDir is the grading suite of a lesson that starts empty: black-box tests, one per
// requirement, that make check-N runs against the learner's manager.
const suiteDir = "scripts/tools/capstone"

// suiteFiles returns the test files of the grading suite, by their names.
func suiteFiles(root string) (map[string][]byte, error) {
	names, err := filepath.Glob(filepath.Join(root, suiteDir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no grading suite (no _test.go file)", suiteDir)
	}
	files := map[string][]byte{}
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(name)] = src
	}
	return files, nil
}
