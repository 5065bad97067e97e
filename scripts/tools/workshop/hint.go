package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// workshop hint N [T] prints a hint for task T of lesson N (make hint-N T=k): the first
// time its first hint, each time after one more, up to the last. Without T, the task is
// the first one the last make check-N found not done. The hints come from
// lessons/index.json; which ones were shown is remembered in .cache/hints (make reset-N
// forgets them).
func hintCommand(root string, args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: workshop hint N [TASK]")
	}
	l, err := readLesson(root, args[0])
	if err != nil {
		return err
	}
	task := 0
	if len(args) == 2 && args[1] != "" {
		if !taskNumber.MatchString(args[1]) {
			return fmt.Errorf("task T must be a number, as in TODO(3): make hint-%d T=3 (got '%s')", l.Number, args[1])
		}
		task, _ = strconv.Atoi(args[1])
	}
	return hint(os.Stdout, root, l, task)
}

var taskNumber = regexp.MustCompile(`^[0-9]+$`)

// hint prints the next hint of task id of lesson l (0: the first not done at the last
// check), and remembers that it was shown.
func hint(w io.Writer, root string, l index.Lesson, id int) error {
	name := filepath.Base(l.Folder)
	if id == 0 {
		res, err := result.Read(result.Path(root, name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			id = 1 // never checked: the first task
		case err != nil:
			return err
		case res.First == 0:
			fmt.Fprintf(w, "Every task of lesson %d was done at your last check. Next: make lesson-%d\n", l.Number, l.Number)
			return nil
		default:
			id = res.First
		}
	}
	if id < 1 || id > len(l.Todos) {
		return fmt.Errorf("lesson %d has the tasks 1 to %d (T=%d)", l.Number, len(l.Todos), id)
	}
	t := l.Todos[id-1]
	seenDir := filepath.Join(root, ".cache", "hints")
	seen := filepath.Join(seenDir, fmt.Sprintf("%s.%d", name, id))
	shown := 0
	if b, err := os.ReadFile(seen); err == nil {
		shown, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	next := min(shown, len(t.Hints)-1)
	if l.StartsEmpty && t.IsTest() {
		// A test the learner writes in the module they scaffolded, at the path given.
		fmt.Fprintf(w, "Task %d %s (%s, docs/lesson-%02d.md)\n", t.ID, t.Title, filepath.Join(l.Folder, t.File), l.Number)
	} else if l.StartsEmpty {
		// A requirement of the capstone's spec: no TODO marks a place for it.
		fmt.Fprintf(w, "R%d %s (docs/lesson-%02d.md)\n", t.ID, t.Title, l.Number)
	} else {
		fmt.Fprintf(w, "TODO(%d) %s (%s:%d)\n", t.ID, t.Title, filepath.Join(l.Folder, t.File), t.Line)
	}
	for i := 0; i <= next; i++ {
		fmt.Fprintf(w, "  Hint %d of %d: %s\n", i+1, len(t.Hints), t.Hints[i])
	}
	if next == len(t.Hints)-1 {
		fmt.Fprintf(w, "That is every hint. The solution's code: make diff-%d\n", l.Number)
	} else {
		fmt.Fprintf(w, "Another hint: make hint-%d T=%d\n", l.Number, t.ID)
	}
	if err := os.MkdirAll(seenDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(seen, []byte(strconv.Itoa(next+1)+"\n"), 0o644)
}
