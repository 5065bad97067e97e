//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A check stopped at its first settled failure kills the test binaries still running,
// and their control planes end with them, though they run in process groups of their own
// (envtest's). The control plane runs under supervisors here, as on macOS, even where
// the kernel could kill it (Linux).
func TestCheckStopsTheControlPlanesOfTheTestsItStops(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets, _ = filepath.Abs(filepath.Join("..", "..", "..", ".cache", "bin", "current"))
	}
	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		t.Skip("needs the control plane's binaries (make binaries):", err)
	}
	inGoTestModule(t, "controlplane")
	t.Setenv("KUBEBUILDER_ASSETS", assets)
	t.Setenv("TESTENV_CONTROL_PLANE_SUPERVISE", "1")
	pidsFile := filepath.Join(t.TempDir(), "control-plane")
	t.Setenv("TODOS_TEST_CONTROL_PLANE", pidsFile)
	var out bytes.Buffer
	err := checkCommand([]string{"go", "test", "-json", "-count=1", "-failfast", "-p=2"}, &out, testLesson, 0, "", "", "", false, true, nil)
	failedSaying(t, err, out.String(), "failing  TODO(1) Validate", "stopped at this first failure")
	b, _ := os.ReadFile(pidsFile)
	pids := strings.Fields(string(b))
	if len(pids) != 4 {
		t.Fatalf("the test of task 3 did not start a control plane of two supervisors and their binaries: %q", pids)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %s still runs after check stopped go test", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// running tells whether process pid runs: it exists and is no zombie.
func running(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil || syscall.Kill(n, 0) != nil {
		return false
	}
	out, err := exec.Command("ps", "-o", "stat=", "-p", pid).Output()
	return err == nil && !strings.HasPrefix(strings.TrimSpace(string(out)), "Z")
}
