// Command workshop is what the learner's Make targets run: make check-N, hint-N,
// progress, diff-N, reset-N, doctor and the rest. It replaces the bash that did this
// work, so that every learner command behaves the same on a stock Mac (bash 3.2, BSD
// tools), on Linux and in WSL 2: it needs Go and nothing else on PATH.
//
//	workshop [-root DIR] COMMAND [ARGS...]
//
// -root is the repository's top folder (the Makefile passes it); by default, the
// current folder. Each command's usage is in the file that implements it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
)

// A command is one subcommand: what it does, in a line, and how.
type command struct {
	summary string
	run     func(root string, args []string) error
}

// commands lists every subcommand by name.
var commands = map[string]command{
	"check":             {"run lesson N's tests and print its checklist (make check-N)", checkCommand},
	"hint":              {"print the next hint of task T of lesson N (make hint-N T=k)", hintCommand},
	"progress":          {"print how far every lesson is, and the next step (make progress)", progressCommand},
	"watch":             {"run check N again each time a file of lesson N is saved (make watch-N)", watchCommand},
	"reset":             {"put lessons N... back to their starting state (make reset-N)", resetCommand},
	"generate-like":     {"give module DIR the controller-gen outputs of REF, or the cached ones", generateLikeCommand},
	"generate-lesson":   {"run controller-gen on lesson DIR unless nothing it reads changed", generateLessonCommand},
	"generated-files":   {"list the files controller-gen wrote into module DIR", generatedFilesCommand},
	"stage-dir":         {"print the folder of lessons|solutions N", stageDirCommand},
	"symptoms":          {"name the troubleshooting entries for known problems in FILE...", symptomsCommand},
	"symptoms-check":    {"check scripts/lib/symptoms.tsv against shared/TROUBLESHOOTING.md", symptomsCheckCommand},
	"doctor":            {"check Go, disk, binaries, ports, kube context and Docker; print the platform's fix for each problem", doctorCommand},
	"webhook-host":      {"the address the current cluster's API server calls a manager on this machine at", webhookHostCommand},
	"diff":              {"lesson N against solution N; N solution: the solution before it against lesson N", diffCommand},
	"steps":             {"solve each lesson's tasks one at a time: each turns exactly its own tests green", stepsCommand},
	"mistakes":          {"make each marked mistake: its checklist row must name it", mistakesCommand},
	"testtasks":         {"grade each test task's solution (catches every bug), empty and idle tests (catch none)", testTasksCommand},
	"capstone-scaffold": {"scaffold lesson N with kubebuilder as its page says: every row must fail and name its requirement", capstoneScaffoldCommand},
	"record-times":      {"keep the last full steps run's times in docs/check-times.tsv and the pages", recordTimesCommand},
}

func main() {
	root := flag.String("root", ".", "the repository's top folder")
	flag.Usage = usage
	flag.Parse()
	if flag.NArg() == 0 {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands[flag.Arg(0)]
	if !ok {
		fmt.Fprintf(os.Stderr, "workshop: no command %q\n", flag.Arg(0))
		usage()
		os.Exit(2)
	}
	err := cmd.run(*root, flag.Args()[1:])
	var failed errFailed
	switch {
	case errors.As(err, &failed):
		os.Exit(1) // the command said what failed
	case err != nil:
		fmt.Fprintf(os.Stderr, "\033[31merror:\033[0m %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: workshop [-root DIR] COMMAND [ARGS...]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(os.Stderr, "  %-12s %s\n", name, commands[name].summary)
	}
}

// errFailed: the command failed and already said why (a check with a task not done, a
// doctor that found a problem); main exits 1 without another word.
type errFailed struct{}

func (errFailed) Error() string { return "failed" }
