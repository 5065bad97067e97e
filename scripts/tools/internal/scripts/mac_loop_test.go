package scripts

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stockmac"
)

// scratchCheckout copies the files git tracks in this checkout into a new folder, with
// this checkout's built binaries: a place where the learner's commands may change
// lessons and remember checks and hints without touching this checkout.
func scratchCheckout(t *testing.T) string {
	t.Helper()
	files, err := exec.Command("git", "-C", top, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	dir := t.TempDir()
	for _, name := range bytes.Split(bytes.TrimRight(files, "\x00"), []byte{0}) {
		src, dst := filepath.Join(top, string(name)), filepath.Join(dir, string(name))
		info, err := os.Lstat(src)
		if err != nil {
			continue // deleted in the working tree
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(src)
			err = os.Symlink(target, dst)
		} else {
			var b []byte
			if b, err = os.ReadFile(src); err == nil {
				err = os.WriteFile(dst, b, info.Mode().Perm())
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// A learner's clone: make progress tells an untouched lesson by git.
	commit := exec.Command("git", "-c", "user.name=learner", "-c", "user.email=learner@example.com", "-c", "init.defaultBranch=main",
		"init", "-q")
	commit.Dir = dir
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.name=learner", "-c", "user.email=learner@example.com", "commit", "-qm", "clone"}} {
		git := exec.Command("git", args...)
		git.Dir = dir
		if out, err := git.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(top, ".cache", "bin"), filepath.Join(dir, ".cache", "bin")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// macShell returns a function that runs a bash line in dir with the tools of a stock
// Mac (stockmac), and returns what it printed and its exit status.
func macShell(t *testing.T, dir string) func(line string) (string, int) {
	path, err := stockmac.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return func(line string) (string, int) {
		t.Helper()
		cmd := exec.Command(filepath.Join(path, "bash"), "-c", line)
		cmd.Dir = dir
		// Ports and a cluster of its own: make test runs its walkthroughs beside it.
		cmd.Env = append(stockmac.Env(path), "WORKSHOP_CLUSTER=workshop-mac", "METRICS_PORT=27080",
			"PROBE_PORT=27081", "WEBHOOK_PORT=27443", "KUBECONFIG="+filepath.Join(dir, ".cache", "kubeconfig"))
		out, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return string(out), code
	}
}

// The learning loop as the README gives it, run with a stock Mac's tools in a scratch
// copy of this checkout: each command does its work and says what it should, with no
// "command not found", no "illegal option" and no bash error on the way.
func TestTheLearningLoopOnAStockMac(t *testing.T) {
	if testing.Short() {
		t.Skip("runs lesson 01's tests several times")
	}
	if _, err := os.Stat(filepath.Join(top, ".cache", "bin", "current", "kube-apiserver")); err != nil {
		t.Skip("no binaries built (make test-binaries)")
	}
	dir := scratchCheckout(t)
	mac := macShell(t, dir)
	// expect runs line on the Mac and requires its exit status (any, for -1) and every
	// want in what it printed, and none of the words a missing or GNU-only tool prints.
	expect := func(line string, status int, wants ...string) string {
		t.Helper()
		out, code := mac(line)
		if status >= 0 && code != status {
			t.Fatalf("%s exited %d, want %d:\n%s", line, code, status, out)
		}
		for _, bad := range []string{"command not found", "illegal option", "invalid option", "unrecognized option", "syntax error", "unbound variable"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s printed %q:\n%s", line, bad, out)
			}
		}
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s does not say %q:\n%s", line, want, out)
			}
		}
		return out
	}

	// Its status depends on this machine: only its words count.
	expect("make doctor", -1, "platform Linux", "Go go1.", "port 27080 (METRICS_PORT)")
	expect("make check-1", 2, "0 of 6 tasks done", "failing  TODO(1)", "A hint: make hint-1 T=1")
	expect("ALL=1 make check-1", 2, "0 of 6 tasks done", "failing  TODO(1)")
	first := expect("make hint-1", 0, "TODO(1)")
	if second := expect("make hint-1", 0, "TODO(1)"); second == first {
		t.Errorf("make hint-1 gave the same hint twice:\n%s", second)
	}
	expect("make progress", 0, "01-imoocpod", "0 of 6 tasks done", "Next: make check-1")
	expect("make diff-1", 0, "diff -ruN lessons/01-imoocpod/")
	expect("make diff-13 FROM=solution", 0, "diff -ruN solutions/02-imoocpod-workflow/")

	// Solve lesson 01 with its solution's code: every task done.
	expect(`cp -R solutions/01-imoocpod/api solutions/01-imoocpod/internal lessons/01-imoocpod/ &&
		find lessons/01-imoocpod -name '*.go' -exec sed -i '' 's#/solutions/01-imoocpod/#/lessons/01-imoocpod/#' {} +`, 0)
	expect("make check-1", 0, "6 of 6 tasks done", "All 6 tasks of lessons/01-imoocpod are done")
	expect("make progress", 0, "01-imoocpod                  done")
	expect("make reset-1", 0)
	if out, err := exec.Command("diff", "-r", filepath.Join(top, "lessons/01-imoocpod"), filepath.Join(dir, "lessons/01-imoocpod")).CombinedOutput(); err != nil {
		t.Errorf("make reset-1 did not put the lesson back as it was:\n%s", out)
	}
	expect("make progress", 0, "01-imoocpod                  not started")
}

// A walkthrough of a stage with webhooks, with a stock Mac's tools: its cluster, its
// manager serving the webhooks, every expectation, and the clean-up.
func TestAWalkthroughWithWebhooksOnAStockMac(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	if _, err := os.Stat(filepath.Join(top, ".cache", "bin", "current", "kwokctl")); err != nil {
		t.Skip("no binaries built (make binaries)")
	}
	dir := scratchCheckout(t)
	mac := macShell(t, dir)
	t.Cleanup(func() { mac("scripts/cluster.sh down") })
	out, code := mac("make solution-4")
	for _, bad := range []string{"command not found", "illegal option", "invalid option", "unrecognized option", "syntax error", "unbound variable"} {
		if strings.Contains(out, bad) {
			t.Errorf("make solution-4 printed %q:\n%s", bad, out)
		}
	}
	if code != 0 || strings.Contains(out, "FAIL") {
		t.Fatalf("make solution-4 on a stock Mac exited %d:\n%s", code, out)
	}
}
