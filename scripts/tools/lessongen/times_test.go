package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTimesDriftsHoldsAPageToTheRecordedFigures(t *testing.T) {
	want := pageTimesLine(checkTime{Folder: "05-pool", Untouched: 6.6, Slowest: 24.8, SlowestAt: 6})
	if !strings.Contains(want, "for 7 seconds; its slowest step, with tasks 1 to 6 solved, for 25 seconds") {
		t.Fatalf("pageTimesLine = %q", want)
	}
	for _, tc := range []struct {
		name, src, want, problem, fixed string
	}{
		{"the recorded line", "# Lesson\n" + want + "\n", want, "", ""},
		{"an older measurement", "# Lesson\n" + pageTimesPrefix + " (...): 9 seconds.\n", want, "not the one", "# Lesson\n" + want + "\n"},
		{"no line at all", "# Lesson\n", want, "has no line", ""},
		{"a time typed by hand", "# Lesson\n" + want + "\nOn my laptop the\nchecklist above took 8 seconds.\n", want, "typed by hand", ""},
		{"a line no figures back", "# Lesson\n" + want + "\n", "", "no figures", ""},
	} {
		var fixed string
		drifts := timesDrifts("docs/lesson-05.md", tc.src, pageTimesPrefix, tc.want, &fixed)
		var got []string
		for _, d := range drifts {
			got = append(got, d.String())
		}
		if (tc.problem == "") != (len(got) == 0) || !strings.Contains(strings.Join(got, "\n"), tc.problem) {
			t.Errorf("%s: timesDrifts = %q; want a problem with %q", tc.name, got, tc.problem)
		}
		if tc.fixed != "" && fixed != tc.fixed {
			t.Errorf("%s: rewritten as %q; want %q", tc.name, fixed, tc.fixed)
		}
	}
}

func TestSyncTimesWritesThePagesAndTheREADMEFromTheRecord(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		checkTimesFile:      "# folder\tuntouched\tslowest\tsolved\n01-a\t0.04\t12.2\t3\n02-b\t11.7\t25.0\t1\n",
		"docs/lesson-01.md": "# One\n" + pageTimesPrefix + ".\n",
		"docs/lesson-02.md": "# Two\n" + pageTimesPrefix + ": old.\n",
		"README.md":         "# W\n" + readmeTimesPrefix + " 3 s.\n",
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if drifts, err := syncTimes(root, true); err != nil || len(drifts) != 3 {
		t.Fatalf("syncTimes(write) = %v, %v; want the three lines rewritten", drifts, err)
	}
	if drifts, err := syncTimes(root, false); err != nil || len(drifts) != 0 {
		t.Fatalf("after make generate, syncTimes = %v, %v; want nothing", drifts, err)
	}
	for name, want := range map[string]string{
		"docs/lesson-01.md": "checklist ran its tests for under a second; its slowest step, with tasks 1 to 3 solved, for 12 seconds.",
		"docs/lesson-02.md": "for 12 seconds; its slowest step, with task 1 solved, for 25 seconds.",
		"README.md":         "12 seconds (lesson 01) to 25 seconds (lesson 02) for the slowest step",
	} {
		got, _ := os.ReadFile(filepath.Join(root, name))
		if !strings.Contains(string(got), want) {
			t.Errorf("%s = %q; want it to say %q", name, got, want)
		}
	}
}

func TestReadCheckTimesNamesTheLineItCannotRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "check-times.tsv")
	if err := os.WriteFile(path, []byte("01-a\t1.0\t2.0\t1\n02-b 3.0 4.0 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCheckTimes(path); err == nil || !strings.Contains(err.Error(), ":2: want") {
		t.Errorf("readCheckTimes = %v; want the error to name line 2", err)
	}
}
