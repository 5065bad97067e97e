package main

import (
	"fmt"
	"io"
	"os"
)

// The learner's commands print their progress as scripts/lib/common.sh's say and warn
// do, on stderr, so that what a command reports (a checklist) is on stdout.
var stderr io.Writer = os.Stderr

// say prints a progress line.
func say(format string, args ...any) {
	fmt.Fprintf(stderr, "\033[1m==>\033[0m %s\n", fmt.Sprintf(format, args...))
}

// warn prints a warning.
func warn(format string, args ...any) {
	fmt.Fprintf(stderr, "\033[33mwarning:\033[0m %s\n", fmt.Sprintf(format, args...))
}
