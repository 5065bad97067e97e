package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stage"
)

// workshop reset N... puts lessons N back to their starting state (make reset-N): it
// writes each from its track (lessongen lesson) with its solution's controller-gen
// outputs (or those of its own inputs, from the cache), and forgets its last check and
// the hints shown, so that make progress calls it not started.
func resetCommand(root string, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: workshop reset N [N ...]")
	}
	lessongen, err := buildTool(root, "lessongen")
	if err != nil {
		return err
	}
	cache, err := generatedCache(root)
	if err != nil {
		return err
	}
	write := func(dir string, n int) error {
		cmd := exec.Command(lessongen, "-root", root, "lesson", "-to", dir, strconv.Itoa(n))
		cmd.Stdout, cmd.Stderr = stderr, stderr
		return cmd.Run()
	}
	for _, arg := range args {
		l, err := readLesson(root, arg)
		if err != nil {
			return err
		}
		if err := reset(root, l, write, cache); err != nil {
			return err
		}
	}
	return nil
}

// reset writes lesson l with write, and its generated files from cache.
func reset(root string, l index.Lesson, write func(dir string, n int) error, cache stage.Cache) error {
	name := filepath.Base(l.Folder)
	dir := filepath.Join(root, l.Folder)
	say("Writing %s", l.Folder)
	if err := write(dir, l.Number); err != nil {
		return err
	}
	if err := cache.GenerateLike(dir, filepath.Join(root, "solutions", name)); err != nil {
		return err
	}
	hints, err := filepath.Glob(filepath.Join(root, ".cache", "hints", name+".*"))
	if err != nil {
		return err
	}
	for _, f := range append(hints, result.Path(root, name)) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
