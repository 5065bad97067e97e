//go:build linux

package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// envtest starts etcd and kube-apiserver each in a process group of its own, and stops
// them from TestMain. A test binary that never gets there (a panic, go test's -timeout,
// os.Exit, a kill) left them running, orphaned, some 300 MB each. So the test binary
// starts them through itself: under the names etcd and kube-apiserver it only asks the
// kernel to kill it when its parent dies (PR_SET_PDEATHSIG), then becomes the real
// binary, which keeps that wish.
const (
	// controlPlaneEnv holds the folder of the real binaries, in the test binary's
	// environment and so in its children's.
	controlPlaneEnv = "TESTENV_CONTROL_PLANE_BINARIES"
	// parentEnv holds the test binary's pid: a child whose parent is already gone exits.
	parentEnv = "TESTENV_CONTROL_PLANE_PARENT"
	// controlPlaneGOGC is the control plane's GOGC, unless the tests' environment sets
	// one. A test's API server lives for seconds: collecting its garbage a quarter as
	// often spares about a tenth of a test package's CPU time for some 150 MB more
	// (MyDaemonSet's first test and its burst test, five runs each: 6.3 CPU-seconds and
	// 390 MB for the largest process with Go's default of 100, 5.8 and 530 MB at 400).
	controlPlaneGOGC = "400"
)

func init() {
	dir, name := os.Getenv(controlPlaneEnv), filepath.Base(os.Args[0])
	if dir == "" || name != "etcd" && name != "kube-apiserver" {
		return
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		fmt.Fprintf(os.Stderr, "testenv: %s: asking to die with the tests: %v\n", name, errno)
		os.Exit(1)
	}
	if strconv.Itoa(os.Getppid()) != os.Getenv(parentEnv) {
		os.Exit(1) // the tests are gone already
	}
	real := filepath.Join(dir, name)
	env := os.Environ()
	if os.Getenv("GOGC") == "" {
		env = append(env, "GOGC="+controlPlaneGOGC)
	}
	err := syscall.Exec(real, append([]string{real}, os.Args[1:]...), env)
	fmt.Fprintf(os.Stderr, "testenv: starting %s: %v\n", real, err)
	os.Exit(1)
}

// dieWithTheTests makes the control plane of te, from the binaries in assets, die with
// the test binary, however it ends. The kernel ties a child to the thread that started
// it: start must run on a thread that lives as long as the control plane (see start).
// It returns what removes the links it made.
func dieWithTheTests(te *envtest.Environment, assets string) (func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	links, err := os.MkdirTemp("", "testenv-control-plane-")
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if err := os.Symlink(self, filepath.Join(links, name)); err != nil {
			_ = os.RemoveAll(links)
			return nil, err
		}
	}
	if err := errors.Join(os.Setenv(controlPlaneEnv, assets), os.Setenv(parentEnv, strconv.Itoa(os.Getpid()))); err != nil {
		_ = os.RemoveAll(links)
		return nil, err
	}
	if te.ControlPlane.Etcd == nil {
		te.ControlPlane.Etcd = &envtest.Etcd{}
	}
	te.ControlPlane.Etcd.Path = filepath.Join(links, "etcd")
	te.ControlPlane.GetAPIServer().Path = filepath.Join(links, "kube-apiserver")
	return func() { _ = os.RemoveAll(links) }, nil
}
