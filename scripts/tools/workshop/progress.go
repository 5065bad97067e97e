package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stage"
)

// workshop progress prints every lesson with how far the learner is (make progress):
// not started (the lesson's files are as cloned), the tasks done at the last make
// check-N, or done (every task done and nothing changed since); then the next step.
func progressCommand(root string, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("usage: workshop progress")
	}
	return progress(os.Stdout, root)
}

func progress(w io.Writer, root string) error {
	git := exec.Command("git", "rev-parse", "--git-dir")
	git.Dir = root
	inGit := git.Run() == nil
	if !inGit {
		warn("not a git checkout: cannot tell untouched lessons from started ones")
	}
	dirs, err := filepath.Glob(filepath.Join(root, "lessons", "[0-9][0-9]-*"))
	if err != nil {
		return err
	}
	next := ""
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		name := filepath.Base(dir)
		n, _ := strconv.Atoi(name[:2])
		state, step, err := lessonState(root, dir, n, inGit)
		if err != nil {
			return err
		}
		if next == "" {
			next = step
		}
		fmt.Fprintf(w, "  %-28s %s\n", name, state)
	}
	if next != "" {
		say("Next: %s", next)
	} else {
		say("Every lesson is done.")
	}
	return nil
}

// lessonState says how far lesson n (its folder dir) is, and the next step when there
// is one.
func lessonState(root, dir string, n int, inGit bool) (state, next string, err error) {
	resultFile := result.Path(root, dir)
	res, err := result.Read(resultFile)
	checked := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", "", err
	}
	if !checked {
		if inGit {
			clean, err := untouched(root, dir)
			if err != nil {
				return "", "", err
			}
			if clean {
				tasks, err := countTasks(dir)
				if err != nil {
					return "", "", err
				}
				return fmt.Sprintf("not started (%d tasks)", tasks), fmt.Sprintf("read docs/lesson-%02d.md, then make check-%d", n, n), nil
			}
		}
		return "started, not checked yet", fmt.Sprintf("make check-%d", n), nil
	}
	fi, err := os.Stat(resultFile)
	if err != nil {
		return "", "", err
	}
	edited, err := stage.EditedSince(dir, fi.ModTime())
	if err != nil {
		return "", "", err
	}
	switch {
	case edited != "":
		return fmt.Sprintf("%d of %d tasks done at the last check; changed since", res.Done, res.Total), fmt.Sprintf("make check-%d", n), nil
	case res.Complete():
		return "done", "", nil
	}
	return fmt.Sprintf("%d of %d tasks done; next: TODO(%d)", res.Done, res.Total, res.First),
		fmt.Sprintf("make check-%d (or make watch-%d) and TODO(%d); make hint-%d gives a hint", n, n, res.First, n), nil
}

// untouched says whether git finds the folder dir as it was committed.
func untouched(root, dir string) (bool, error) {
	git := exec.Command("git", "status", "--porcelain", "--", dir)
	git.Dir = root
	out, err := git.Output()
	if err != nil {
		return false, fmt.Errorf("git status %s: %w", dir, err)
	}
	return strings.TrimSpace(string(out)) == "", nil
}

var todo = regexp.MustCompile(`TODO\([0-9]+\)`)

// countTasks counts the different TODO(k) in the files of dir.
func countTasks(dir string) (int, error) {
	ids := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range todo.FindAll(src, -1) {
			ids[string(m)] = true
		}
		return nil
	})
	return len(ids), err
}
