package main

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/checktimes"
)

// How long make check-N's tests run is measured, never written by hand: every step of
// the task-by-task proof (scripts/lessons.sh todos) is timed, `scripts/lessons.sh
// record-times` keeps the last full run's figures in docs/check-times.tsv, and from
// that file make generate writes each lesson page's line and the README's range, which
// make verify then checks. A figure typed into a page drifts the day a test changes.
const checkTimesFile = checktimes.File

// A checkTime is one lesson's figures from the proof: how long the tests ran, the build
// left out, on the untouched lesson (step 0) and at the lesson's slowest step.
type checkTime = checktimes.Time

// readCheckTimes reads docs/check-times.tsv, by lesson number.
func readCheckTimes(path string) (map[int]checkTime, error) {
	list, err := checktimes.Read(path)
	if err != nil {
		return nil, err
	}
	times := map[int]checkTime{}
	for _, t := range list {
		n, _ := t.Lesson() // Read checked it
		times[n] = t
	}
	return times, nil
}

// The generated lines begin with these words; make generate owns the rest of the line.
const (
	pageTimesPrefix   = "Measured by the last full task-by-task check"
	readmeTimesPrefix = "The last full task-by-task check measured"
)

// handTimed finds a time a page states by hand about its checklist ("the checklist
// took 8 seconds", "each step ran the tests for 23 s"): the generated line says it instead.
var handTimed = regexp.MustCompile(`(?i)\b(checklist|check-[0-9]+|step)\b[^.]{0,60}\b(took|ran [a-z ]{0,12}for) (about )?[0-9]`)

// pageTimesLine is the line lesson page N carries about its checklist's time.
func pageTimesLine(t checkTime) string {
	return fmt.Sprintf("%s (`scripts/lessons.sh todos`; two cores, two steps at a time, the build left out): the untouched lesson's checklist ran its tests for %s; its slowest step, with %s, for %s.",
		pageTimesPrefix, seconds(t.Untouched), solved(t.SlowestAt), seconds(t.Slowest))
}

// readmeTimesLine is the README's line: the range of the lessons' slowest steps.
func readmeTimesLine(times map[int]checkTime) string {
	lessons := slices.Sorted(maps.Keys(times))
	lo, hi := lessons[0], lessons[0]
	for _, n := range lessons {
		if math.Round(times[n].Slowest) < math.Round(times[lo].Slowest) {
			lo = n
		}
		if math.Round(times[n].Slowest) > math.Round(times[hi].Slowest) {
			hi = n
		}
	}
	return fmt.Sprintf("%s, on two cores and two steps at a time, %s (lesson %02d) to %s (lesson %02d) for the slowest step of a lesson's checklist, the build left out.",
		readmeTimesPrefix, seconds(times[lo].Slowest), lo, seconds(times[hi].Slowest), hi)
}

func seconds(s float64) string {
	switch r := math.Round(s); {
	case r < 1:
		return "under a second"
	case r == 1:
		return "1 second"
	default:
		return fmt.Sprintf("%.0f seconds", r)
	}
}

func solved(k int) string {
	switch k {
	case 0:
		return "no task solved"
	case 1:
		return "task 1 solved"
	default:
		return fmt.Sprintf("tasks 1 to %d solved", k)
	}
}

// timesDrifts compares a page (src) with the line it should carry (want, "" for a page
// that has no figures) and returns what differs. With a non-nil fix, a line that only
// needs rewriting is rewritten in it.
func timesDrifts(page, src, prefix, want string, fix *string) []docDrift {
	var drifts []docDrift
	lines := strings.Split(src, "\n")
	found := false
	var byHand []string // the page but its generated line
	for i, line := range lines {
		if !strings.HasPrefix(line, prefix) {
			byHand = append(byHand, line)
			continue
		}
		found = true
		if want == "" {
			drifts = append(drifts, docDrift{Page: page, Line: i + 1, Problem: "no figures are recorded for this page in " + checkTimesFile})
		} else if line != want {
			drifts = append(drifts, docDrift{Page: page, Line: i + 1, Problem: "the measured time is not the one " + checkTimesFile + " records", Want: want})
			lines[i] = want
		}
	}
	if want != "" && !found {
		drifts = append(drifts, docDrift{Page: page, Problem: fmt.Sprintf("the page has no line that starts %q: add one (make generate fills it in)", prefix)})
	}
	if m := handTimed.FindString(strings.Join(strings.Fields(strings.Join(byHand, "\n")), " ")); m != "" {
		drifts = append(drifts, docDrift{Page: page, Problem: fmt.Sprintf("%q: a time typed by hand; the line %q says it, from %s", m, prefix, checkTimesFile)})
	}
	if fix != nil {
		*fix = strings.Join(lines, "\n")
	}
	return drifts
}

// syncTimes brings every lesson page's line, and the README's, in line with
// docs/check-times.tsv (with write), and returns what drifted.
func syncTimes(root string, write bool) ([]docDrift, error) {
	times, err := readCheckTimes(filepath.Join(root, checkTimesFile))
	if err != nil {
		return nil, err
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "lesson-*.md"))
	if err != nil {
		return nil, err
	}
	type target struct{ page, prefix, want string }
	var targets []target
	for _, p := range pages {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "lesson-"), ".md"))
		if err != nil {
			return nil, fmt.Errorf("%s: a lesson page is named docs/lesson-NN.md", p)
		}
		want := ""
		if t, ok := times[n]; ok {
			want = pageTimesLine(t)
		}
		targets = append(targets, target{p, pageTimesPrefix, want})
	}
	if len(times) > 0 {
		targets = append(targets, target{filepath.Join(root, "README.md"), readmeTimesPrefix, readmeTimesLine(times)})
	}
	var drifts []docDrift
	for _, t := range targets {
		src, err := os.ReadFile(t.page)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, t.page)
		var fixed string
		d := timesDrifts(rel, string(src), t.prefix, t.want, &fixed)
		drifts = append(drifts, d...)
		if write && fixed != string(src) {
			if err := os.WriteFile(t.page, []byte(fixed), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return drifts, nil
}
