package main

import (
	"io"
	"os"
	"os/exec"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// runGoTest runs go test (args) and returns its output, stdout and stderr together, as
// a pipe would give it; stop ends it and every test binary it started; wait waits for it.
func runGoTest(args []string) (out io.Reader, stop func(), wait func() error, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = w, w
	inGroup(cmd)
	if err := cmd.Start(); err != nil {
		_ = r.Close()
		_ = w.Close()
		return nil, nil, nil, err
	}
	_ = w.Close() // the children hold it now: r ends when the last of them does
	stop = func() { killGroup(cmd) }
	wait = func() error {
		defer r.Close()
		return cmd.Wait()
	}
	return r, stop, wait, nil
}

// firstFailureKnown says whether the checklist's first failure is settled: the first
// task not done is failing, and every task before it is done. The packages still
// running can only hold later tasks' tests, which the checklist shows as not run.
func firstFailureKnown(l index.Lesson) func(*run) bool {
	return func(r *run) bool {
		for _, s := range states(l, r) {
			switch s {
			case done:
				continue
			case failing:
				return true
			}
			return false
		}
		return false
	}
}
