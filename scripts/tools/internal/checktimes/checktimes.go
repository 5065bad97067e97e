// Package checktimes reads and writes docs/check-times.tsv: how long make check-N's
// tests ran, the build left out, at each lesson's untouched step and at its slowest step,
// in the last full run of the task-by-task proof (workshop steps). workshop record-times
// writes it; lessongen carries its figures into the lesson pages and the README. A
// figure typed into a page drifts the day a test changes.
package checktimes

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// File is the file's path in the checkout.
const File = "docs/check-times.tsv"

// A Time is one lesson's figures.
type Time struct {
	Folder    string  // 05-nodepool
	Untouched float64 // seconds, the untouched lesson's tests
	Slowest   float64 // seconds, the slowest step's tests
	SlowestAt int     // the tasks solved at the slowest step
}

// Lesson returns the number of the lesson (05-nodepool: 5).
func (t Time) Lesson() (int, error) {
	return strconv.Atoi(strings.SplitN(t.Folder, "-", 2)[0])
}

// Read reads a file of lines "folder<TAB>untouched<TAB>slowest<TAB>tasks solved"; lines
// starting with # are comments.
func Read(path string) ([]Time, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var times []Time
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var t Time
		fields := strings.Split(line, "\t")
		bad := len(fields) != 4
		if !bad {
			t.Folder = fields[0]
			var e1, e2, e3, e4 error
			t.Untouched, e1 = strconv.ParseFloat(fields[1], 64)
			t.Slowest, e2 = strconv.ParseFloat(fields[2], 64)
			t.SlowestAt, e3 = strconv.Atoi(fields[3])
			_, e4 = t.Lesson()
			bad = e1 != nil || e2 != nil || e3 != nil || e4 != nil
		}
		if bad {
			return nil, fmt.Errorf("%s:%d: want \"NN-name<TAB>seconds<TAB>seconds<TAB>tasks solved\", got %q", path, n, line)
		}
		times = append(times, t)
	}
	return times, s.Err()
}

// Header heads the file: what it holds and who writes it.
const Header = `# How long make check-N's tests ran, the build left out, in the last full run of
# workshop steps (two cores, two steps at a time): a lesson a line, its untouched
# lesson's seconds, its slowest step's seconds and the tasks solved there.
# Written by workshop record-times (scripts/lessons.sh record-times); make generate
# carries it into docs/.
`

// Write writes times, by folder and to a tenth of a second, under header, to path.
func Write(path string, times []Time, header string) error {
	times = slices.Clone(times)
	slices.SortFunc(times, func(a, b Time) int { return strings.Compare(a.Folder, b.Folder) })
	var b strings.Builder
	b.WriteString(header)
	for _, t := range times {
		fmt.Fprintf(&b, "%s\t%.1f\t%.1f\t%d\n", t.Folder, t.Untouched, t.Slowest, t.SlowestAt)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
