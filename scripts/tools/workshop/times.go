package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// checkTimesFile holds the figures of the last full run of workshop steps that the
// lesson pages and the README give: workshop record-times writes it, lessongen docs
// carries it into the pages, and make verify checks the lines that give them.
const checkTimesFile = "docs/check-times.tsv"

const checkTimesHeader = `# How long make check-N's tests ran, the build left out, in the last full run of
# workshop steps (two cores, two steps at a time): a lesson a line, its untouched
# lesson's seconds, its slowest step's seconds and the tasks solved there.
# Written by workshop record-times (scripts/lessons.sh record-times); make generate
# carries it into docs/.
`

// checkTime is one lesson's row of checkTimesFile.
type checkTime struct {
	folder    string
	untouched float64 // the seconds of the untouched lesson's tests
	slowest   float64 // the seconds of its slowest step's tests
	solvedAt  int     // the tasks solved at that step
}

// readCheckTimes reads the rows of root's checkTimesFile by lesson folder.
func readCheckTimes(root string) (map[string]checkTime, error) {
	return readTimes(filepath.Join(root, checkTimesFile))
}

func readTimes(name string) (map[string]checkTime, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]checkTime{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := lines.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s: %q has %d fields, want folder, untouched, slowest, tasks solved", name, line, len(fields))
		}
		var t checkTime
		t.folder = fields[0]
		var errs [3]error
		t.untouched, errs[0] = strconv.ParseFloat(fields[1], 64)
		t.slowest, errs[1] = strconv.ParseFloat(fields[2], 64)
		t.solvedAt, errs[2] = strconv.Atoi(fields[3])
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %w", name, line, err)
			}
		}
		out[t.folder] = t
	}
	return out, lines.Err()
}

// writeCheckTimes writes rows, by folder, under header, to the file name.
func writeCheckTimes(name string, rows []checkTime, header string) error {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b checkTime) int { return strings.Compare(a.folder, b.folder) })
	var b strings.Builder
	b.WriteString(header)
	for _, r := range rows {
		fmt.Fprintf(&b, "%s\t%.1f\t%.1f\t%d\n", r.folder, r.untouched, r.slowest, r.solvedAt)
	}
	return os.WriteFile(name, []byte(b.String()), 0o644)
}

// workshop record-times keeps the figures of the last full workshop steps run (of every
// track, and passed) in docs/check-times.tsv, and rewrites the lines of the lesson pages
// and the README that give them (lessongen docs).
func recordTimesCommand(root string, args []string) error {
	if len(args) != 0 {
		return fmt.Errorf("usage: workshop record-times")
	}
	measured := filepath.Join(root, ".cache", "test", "todos-all", "times.tsv")
	times, err := readTimes(measured)
	if err != nil {
		return fmt.Errorf("no figures to record (%w): run workshop steps, every track, until it passes", err)
	}
	rows := make([]checkTime, 0, len(times))
	for _, t := range times {
		rows = append(rows, t)
	}
	if err := writeCheckTimes(filepath.Join(root, checkTimesFile), rows, checkTimesHeader); err != nil {
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
	say("Recorded %s and rewrote the lines of docs/ and README.md that give its figures", checkTimesFile)
	return nil
}
