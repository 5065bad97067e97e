package main

import (
	"fmt"
	"os"
)

// A target is a figure the benchmark promises of the workshop's controller: at most
// limit. A benchmark that only printed its figures would rot: nobody reads them on a
// green run. Every run checks them, and fails on a miss, so that make test's short form
// of each benchmark catches the controller that got chattier or hungrier.
//
// A time is the exception: at a fifth of the scale, against a built-in controller that
// is done in a second, a time measures the machine's load more than the controller. A
// target on a time is checked at full scale only (-check-times, make bench-NAME), and
// printed in the short form.
type target struct {
	figure string
	got    float64
	limit  float64
	format string // how got and limit print: "%.2fx", "%.0f"
	time   bool   // a target on a time, checked with -check-times only
}

// checkTimes says whether the targets on times count: scripts/bench.sh sets it at full
// scale.
var checkTimes = true

func (t target) checked() bool { return !t.time || checkTimes }

func (t target) met() bool { return !t.checked() || t.got <= t.limit }

func (t target) String() string {
	verdict := "met"
	switch {
	case !t.checked():
		verdict = "(time)"
	case !t.met():
		verdict = "MISSED"
	}
	return fmt.Sprintf("%-6s %s: "+t.format+" (target: at most "+t.format+")", verdict, t.figure, t.got, t.limit)
}

// targets collects the run's targets, in the order the figures were taken.
var targets []target

// expectAtMost records a target: figure, which came out as got, must be at most limit.
func expectAtMost(figure string, got, limit float64, format string) {
	targets = append(targets, target{figure: figure, got: got, limit: limit, format: format})
}

// expectTimeAtMost records a target on a time, or on a ratio of times.
func expectTimeAtMost(figure string, got, limit float64, format string) {
	targets = append(targets, target{figure: figure, got: got, limit: limit, format: format, time: true})
}

// reportTargets prints every target, met or missed, and fails the run on a miss.
func reportTargets() {
	if len(targets) == 0 {
		return
	}
	fmt.Println("\nTargets:")
	if !checkTimes {
		fmt.Println("  (the targets on times are checked at full scale only: make bench-NAME)")
	}
	missed := 0
	for _, t := range targets {
		fmt.Printf("  %s\n", t)
		if !t.met() {
			missed++
		}
	}
	if missed > 0 {
		fmt.Fprintf(os.Stderr, "scalebench: %d of %d targets missed (above)\n", missed, len(targets))
		os.Exit(1)
	}
}
