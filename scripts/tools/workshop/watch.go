package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stage"
)

// workshop watch N runs lesson N's check again whenever a file of the lesson is saved
// (make watch-N), until Ctrl-C stops it. When every task is done it says what comes
// next. Files are polled once a second: no file-watching tool is needed. ALL=1, V=1 and
// TESTENV_VERBOSE=1 work as for make check-N.
func watchCommand(root string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: workshop watch N")
	}
	l, err := readLesson(root, args[0])
	if err != nil {
		return err
	}
	dir := filepath.Join(root, l.Folder)
	stamp := filepath.Join(root, ".cache", "check", "watch-"+filepath.Base(dir)+".stamp")
	if err := os.MkdirAll(filepath.Dir(stamp), 0o755); err != nil {
		return err
	}
	for {
		// The stamp's own time, not the clock's: a file system that keeps whole seconds
		// would make a file saved just after look older than the clock's now.
		if err := os.WriteFile(stamp, nil, 0o644); err != nil {
			return err
		}
		fi, err := os.Stat(stamp)
		if err != nil {
			return err
		}
		clearScreen()
		err = checkCommand(root, args)
		switch {
		case err == nil:
			say("All done. Next: make lesson-%d shows your controller at work on a cluster.", l.Number)
		case !errors.As(err, new(errFailed)):
			fmt.Fprintf(stderr, "\033[31merror:\033[0m %v\n", err)
		}
		say("Watching lessons/%s for saved files (Ctrl-C stops)", filepath.Base(dir))
		if _, err := waitForSave(dir, fi.ModTime(), time.Second, nil); err != nil {
			return err
		}
	}
}

// waitForSave polls the lesson dir every interval until a file of the learner's
// (stage.EditedSince) changed after since, and returns it; or until stop is closed.
func waitForSave(dir string, since time.Time, interval time.Duration, stop <-chan struct{}) (string, error) {
	for {
		file, err := stage.EditedSince(dir, since)
		if file != "" || err != nil {
			return file, err
		}
		select {
		case <-stop:
			return "", nil
		case <-time.After(interval):
		}
	}
}

// clearScreen clears a terminal, as clear(1) does; a pipe gets nothing.
func clearScreen() {
	if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Print("\033[H\033[2J\033[3J")
	}
}
