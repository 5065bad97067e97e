//go:build unix

package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A test binary that is killed never removes its control plane's folder (etcd's data
// alone is over 100 MB): the next start removes the folders of test binaries that are
// gone, and only those.
func TestAStartRemovesTheFoldersOfTestBinariesThatAreGone(t *testing.T) {
	tmp := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadPid := gone.Process.Pid
	folders := map[string]bool{ // name: whether it must stay
		fmt.Sprintf("%s%d-123", runPrefix, deadPid):      false,
		fmt.Sprintf("%s%d-456", runPrefix, os.Getpid()):  true,
		fmt.Sprintf("%s%d-789", runPrefix, os.Getppid()): true,
		"k8s_test_framework_1":                           true, // not ours to judge
		runPrefix + "notapid-1":                          true,
	}
	for name := range folders {
		if err := os.MkdirAll(filepath.Join(tmp, name, "etcd-data"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	removeLeftovers(tmp)
	for name, stays := range folders {
		_, err := os.Stat(filepath.Join(tmp, name))
		if stays && err != nil {
			t.Errorf("%s was removed; its process runs, or it is not a control plane's folder", name)
		}
		if !stays && err == nil {
			t.Errorf("%s stayed, though process %d is gone", name, deadPid)
		}
	}
}
