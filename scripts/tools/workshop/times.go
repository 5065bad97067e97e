package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/checktimes"
)

// workshop record-times keeps the figures of the last full workshop steps run (of every
// track, and passed) in docs/check-times.tsv, and rewrites the lines of the lesson pages
// and the README that give them (lessongen docs).
func recordTimesCommand(root string, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("usage: workshop record-times")
	}
	measured := filepath.Join(root, ".cache", "test", "todos-all", "times.tsv")
	times, err := checktimes.Read(measured)
	if err != nil {
		return fmt.Errorf("no figures to record (%w): run workshop steps, every track, until it passes", err)
	}
	if err := checktimes.Write(filepath.Join(root, checktimes.File), times, checktimes.Header); err != nil {
		return err
	}
	lessongen, err := buildTool(root, "lessongen")
	if err != nil {
		return err
	}
	c := &checks{root: root}
	if err := c.run(os.Stderr, "", lessongen, "-root", root, "docs"); err != nil {
		return err
	}
	say("Recorded %s and rewrote the lines of docs/ and README.md that give its figures", checktimes.File)
	return nil
}
