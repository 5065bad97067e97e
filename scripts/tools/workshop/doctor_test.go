package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Go versions sort the way Go orders releases, whatever their prefixes.
func TestGoVersionKeyOrdersReleases(t *testing.T) {
	ordered := []string{"go1.21.13", "devel go1.26-abcdef", "go1.26beta1", "go1.26rc2", "1.26.0", "go1.26.3", "go1.27rc1", "go1.27.0"}
	for i := 1; i < len(ordered); i++ {
		if goVersionKey(ordered[i-1]) >= goVersionKey(ordered[i]) {
			t.Errorf("goVersionKey(%q) >= goVersionKey(%q)", ordered[i-1], ordered[i])
		}
	}
	if goVersionKey("unknown") != 0 {
		t.Errorf("an unreadable version must be 0, older than any")
	}
}

// Only the test control planes whose test is gone (their parent is init) count as
// left behind; a running test's, and other etcds, do not.
func TestOrphanedControlPlanes(t *testing.T) {
	ps := `    1     0 /sbin/launchd
  812     1 /tmp/k8s_test_framework_1234/kube-apiserver --etcd-servers=http://127.0.0.1:5000
  813     1 /Users/ann/operator-workshop/.cache/bin/current/etcd --data-dir=/var/folders/x/k8s_test_framework_987/etcd
  900   899 /tmp/k8s_test_framework_555/kube-apiserver --secure-port=6000
  950     1 /usr/local/bin/etcd --data-dir=/var/lib/etcd
`
	if got := strings.Join(orphanedControlPlanes(ps), " "); got != "812 813" {
		t.Errorf("orphanedControlPlanes = %q, want \"812 813\"", got)
	}
}

// A port another process listens on is taken, whether it listens on 127.0.0.1 or on
// every address, and free again once it stops.
func TestPortFree(t *testing.T) {
	for _, host := range []string{"127.0.0.1", ""} {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		for _, managerHost := range []string{"127.0.0.1", ""} {
			if portFree(managerHost, port) {
				t.Errorf("port %d, listened on at %q, is free for a manager on %q", port, host, managerHost)
			}
		}
		l.Close()
		if !portFree("127.0.0.1", port) || !portFree("", port) {
			t.Errorf("port %d is not free once its listener stopped", port)
		}
	}
}

// newTestDoctor returns a doctor of the checkout root on this machine, writing into out.
func newTestDoctor(t *testing.T, root string, out *bytes.Buffer) *doctor {
	t.Helper()
	pins, err := readPins(root)
	if err != nil {
		t.Fatal(err)
	}
	return &doctor{ctx: context.Background(), root: root, pins: pins,
		platform: platformOf(platformFacts{GOOS: "linux", GOARCH: "amd64"}), report: &doctorReport{out: out}}
}

// A port the manager needs that another process holds is a problem, which names the
// port's variable and the one to set instead, and the holder when lsof can name it;
// with any problem the doctor fails (make doctor exits 1).
func TestDoctorFailsOnATakenPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	t.Setenv("METRICS_PORT", strconv.Itoa(port))
	// The other two on ports free now, so that a manager running here does not count.
	for _, variable := range []string{"PROBE_PORT", "WEBHOOK_PORT"} {
		free, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv(variable, strconv.Itoa(free.Addr().(*net.TCPAddr).Port))
		free.Close()
	}
	var out bytes.Buffer
	d := newTestDoctor(t, thisCheckout, &out)
	err = d.check()
	if !errors.As(err, new(errFailed)) {
		t.Errorf("check() = %v, want errFailed", err)
	}
	want := fmt.Sprintf("problem  port %d (METRICS_PORT) is taken by ", port)
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), fmt.Sprintf("make lesson-N METRICS_PORT=%d", port+10)) {
		t.Errorf("want %q and the port to use instead, got:\n%s", want, out.String())
	}
	if _, err := exec.LookPath("lsof"); err == nil && !strings.Contains(out.String(), fmt.Sprintf("(kill %d)", os.Getpid())) {
		t.Errorf("lsof is here: want the holder's pid, %d, got:\n%s", os.Getpid(), out.String())
	}
	if !strings.HasSuffix(out.String(), fmt.Sprintf("%d problem(s) above; fix them and run make doctor again.\n", d.report.problems)) {
		t.Errorf("want the count of problems last, got:\n%s", out.String())
	}
	if !strings.HasPrefix(out.String(), "platform Linux, amd64") {
		t.Errorf("want the platform first, got:\n%s", out.String())
	}
}

// The folder of binaries the doctor expects is the one scripts/lib/common.sh builds into.
func TestPinnedBinNameIsCommonShs(t *testing.T) {
	cmd := exec.Command("bash", "-c", `source scripts/lib/common.sh && basename "$BIN"`)
	cmd.Dir = thisCheckout
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("common.sh: %v", err)
	}
	pins, err := readPins(thisCheckout)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pinnedBinName(thisCheckout, pins)
	if err != nil || got != strings.TrimSpace(string(out)) {
		t.Errorf("pinnedBinName = %q, %v; common.sh's BIN is %q", got, err, strings.TrimSpace(string(out)))
	}
}

// copyCheckoutFile copies the file rel of the checkout into root.
func copyCheckoutFile(t *testing.T, root, rel string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(thisCheckout, rel))
	if err != nil {
		t.Fatal(err)
	}
	writeTestTree(t, root, map[string]string{rel: string(b)})
}

// Each built binary must say the version the pins name: one that says another is a
// problem, with the fix of removing the folder; one not built yet only a note.
func TestDoctorChecksEachBinarysVersion(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"scripts/versions.env", "scripts/controlplane/go.mod", "scripts/controlplane/go.sum",
		"scripts/controlplane/etcd/main.go", "scripts/tools/go.mod", "scripts/tools/go.sum",
		"scripts/kubebuilder/go.mod", "scripts/kubebuilder/go.sum", "scripts/helm/go.mod", "scripts/helm/go.sum",
		"scripts/delve/go.mod", "scripts/delve/go.sum"} {
		copyCheckoutFile(t, root, rel)
	}
	var out bytes.Buffer
	d := newTestDoctor(t, root, &out)
	pinned, _ := pinnedBinName(root, d.pins)
	bin := filepath.Join(root, ".cache", "bin", pinned)
	for _, b := range builtBinaries {
		version := d.pins[b.pin]
		switch b.name {
		case "kind":
			continue // not built yet
		case "kubectl":
			version = "v1.20.0" // another version
		case "etcd", "dlv":
			version = strings.TrimPrefix(version, "v")
		}
		script := "#!/bin/sh\necho '" + b.name + " version " + version + "'\n"
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bin, b.name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(pinned, filepath.Join(root, ".cache", "bin", "current")); err != nil {
		t.Fatal(err)
	}
	d.checkBinaries()
	for _, want := range []string{
		"ok       .cache/bin/current is " + pinned,
		"ok       etcd " + strings.TrimPrefix(d.pins["ETCD_VERSION"], "v"),
		"ok       kube-apiserver " + d.pins["KUBERNETES_VERSION"],
		"problem  kubectl does not report " + d.pins["KUBERNETES_VERSION"],
		"fix: rm -r .cache/bin/" + pinned + " && make binaries",
		"note     kind is not built yet",
		"ok       goimports",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("want %q, got:\n%s", want, out.String())
		}
	}
	if d.report.problems != 1 {
		t.Errorf("want 1 problem, got %d", d.report.problems)
	}
}

// Free space is measured on the filesystem that holds a folder, named by its mount
// point, without df.
func TestFreeSpace(t *testing.T) {
	dir := t.TempDir()
	free, mount, err := freeSpace(dir)
	if err != nil || free == 0 || !strings.HasPrefix(dir, mount) {
		t.Errorf("freeSpace(%s) = %d, %q, %v; want some bytes free on a mount point above it", dir, free, mount, err)
	}
}
