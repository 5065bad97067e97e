// Package scripts tests the shell helpers of scripts/lib, with a kubectl or go command
// of its own.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeKubectl writes a kubectl into a new folder that answers its first `wait` with
// first (an error, exit 1) and every later one with success, counting the calls in a
// file; it returns the folder and the count's file.
func fakeKubectl(t *testing.T, first string) (dir, calls string) {
	t.Helper()
	dir = t.TempDir()
	calls = filepath.Join(dir, "calls")
	script := `[[ $1 == wait ]] || exit 0
echo x >>"` + calls + `"
if (($(wc -l <"` + calls + `") == 1)); then echo "` + first + `" >&2; exit 1; fi
`
	writeCommand(t, dir, "kubectl", script)
	return dir, calls
}

// writeCommand writes the bash script, as the command name, into dir.
func writeCommand(t *testing.T, dir, name, script string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/usr/bin/env bash\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// runWithCommandsOf runs the bash line with the commands of dir first in its PATH, and
// returns what it printed.
func runWithCommandsOf(dir, line string) (string, error) {
	cmd := exec.Command("bash", "-c", line)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// waitEstablished runs wait_established crd --all with kubectl from dir, and returns
// its output and how many times it ran kubectl wait.
func waitEstablished(t *testing.T, dir, calls string) (string, int, error) {
	t.Helper()
	out, err := runWithCommandsOf(dir, `source ../../../lib/common.sh && wait_established crd --all`)
	b, _ := os.ReadFile(calls)
	return out, strings.Count(string(b), "x"), err
}

// A CRD read before the API server gave it any condition has status.conditions null,
// and kubectl wait fails at once instead of waiting: the helper reads it again.
func TestWaitEstablishedWaitsThroughACRDWithoutConditionsYet(t *testing.T) {
	dir, calls := fakeKubectl(t, "error: .status.conditions accessor error: <nil> is of the type <nil>, expected []interface{}")
	out, n, err := waitEstablished(t, dir, calls)
	if err != nil || n != 2 {
		t.Errorf("wait_established: %v after %d kubectl waits, output:\n%s", err, n, out)
	}
}

// Any other failure is said, and not retried.
func TestWaitEstablishedSaysOtherErrors(t *testing.T) {
	dir, calls := fakeKubectl(t, "error: timed out waiting for the condition on customresourcedefinitions/a")
	out, n, err := waitEstablished(t, dir, calls)
	if err == nil || n != 1 || !strings.Contains(out, "timed out waiting") {
		t.Errorf("wait_established: %v after %d kubectl waits, output:\n%s", err, n, out)
	}
}
