package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runShellcheck runs run_shellcheck (scripts/lib/shellcheck.sh) with ROOT set to
// root, after line (more shell, or nothing), and returns what it printed.
func runShellcheck(root, line string) (string, error) {
	return runWithCommandsOf(os.TempDir(), `source ../../../lib/common.sh && source ../../../lib/shellcheck.sh && ROOT='`+root+`' && `+line+` run_shellcheck`)
}

// The workshop's own shell, every *.sh git tracks and .ci/run, passes ShellCheck with
// the settings of .shellcheckrc: make verify requires it.
func TestShellcheckFindsNothingInTheWorkshopsShell(t *testing.T) {
	root, err := filepath.Abs("../../../..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := runShellcheck(root, ""); err != nil {
		t.Errorf("run_shellcheck on this checkout: %v, output:\n%s", err, out)
	}
}

// A finding fails the check, and the output names the file and the check.
func TestShellcheckFailsOnAFindingAndNamesIt(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		".shellcheckrc":  "shell=bash\n",
		".ci/run":        "#!/usr/bin/env bash\necho ok\n",
		"scripts/bad.sh": "#!/usr/bin/env bash\necho $1\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err := runShellcheck(root, "")
	if err == nil || !strings.Contains(out, "scripts/bad.sh") || !strings.Contains(out, "SC2086") {
		t.Errorf("run_shellcheck on a script with a finding: %v, output:\n%s", err, out)
	}
}

// Without shellcheck, the check fails and says how to install it on each platform.
func TestShellcheckMissingSaysHowToInstallIt(t *testing.T) {
	out, err := runShellcheck(t.TempDir(), "PATH="+t.TempDir())
	for _, want := range []string{"sudo apt-get install shellcheck", "brew install shellcheck"} {
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("run_shellcheck without shellcheck: %v, want %q in its output:\n%s", err, want, out)
		}
	}
}
