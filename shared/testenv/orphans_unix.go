//go:build unix

package testenv

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// envtest starts etcd and kube-apiserver each in a process group of its own, and stops
// them from TestMain. A test binary that never gets there (a panic, go test's -timeout,
// os.Exit, a kill) left them running, orphaned, some 300 MB each. So the test binary
// starts them through itself: under the names etcd and kube-apiserver, it ties the real
// binary's life to its own, the way each OS allows.
//
//   - Linux: it asks the kernel to kill it when its parent dies (PR_SET_PDEATHSIG), then
//     becomes the real binary, which keeps that wish. No process is added.
//   - Other unix (macOS): no kernel does that, so it stays, as a supervisor. It starts
//     the real binary as its child, in the group envtest made for it, and kills it when
//     a pipe reaches its end: the test binary holds the only write end and never writes,
//     so the kernel closes it, and the supervisor reads the end of the pipe, the instant
//     the test binary ends, however it ends. A supervisor is the test binary, idle:
//     some 40 MB each (measured on Linux), which is why Linux keeps the kernel's way.
//     Linux uses it too when superviseEnv is 1 (tests do, to prove it where they run).
//
// Windows is no target: controller-runtime v0.25's envtest does not compile there (WSL 2
// is the Windows route); orphans_other.go only keeps the package whole.
const (
	// controlPlaneEnv holds the folder of the real binaries, in the test binary's
	// environment and so in its children's.
	controlPlaneEnv = "TESTENV_CONTROL_PLANE_BINARIES"
	// parentEnv holds the test binary's pid: a child whose parent is already gone exits.
	parentEnv = "TESTENV_CONTROL_PLANE_PARENT"
	// testsEndEnv holds the number of the descriptor, inherited from the test binary, of
	// the read end of the pipe that ends with it. When set, the control plane runs under
	// a supervisor.
	testsEndEnv = "TESTENV_CONTROL_PLANE_TESTS_END"
	// superviseEnv, set to 1 in the tests' environment, makes the control plane run
	// under a supervisor even where the kernel could kill it.
	superviseEnv = "TESTENV_CONTROL_PLANE_SUPERVISE"
	// controlPlaneGOGC is the control plane's GOGC, unless the tests' environment sets
	// one. A test's API server lives for seconds: collecting its garbage a quarter as
	// often spares about a tenth of a test package's CPU time for some 150 MB more
	// (MyDaemonSet's first test and its burst test, five runs each: 6.3 CPU-seconds and
	// 390 MB for the largest process with Go's default of 100, 5.8 and 530 MB at 400).
	controlPlaneGOGC = "400"
)

// supervise says whether the control plane runs under a supervisor (see above) rather
// than being killed by the kernel: always where the kernel cannot do it.
var supervise = !kernelKillsOrphans || os.Getenv(superviseEnv) == "1"

// testsEnd is the pipe whose write end only the test binary holds, made once.
var testsEnd struct {
	once sync.Once
	read int      // inherited by the processes the test binary starts
	keep *os.File // the write end, open as long as the test binary runs
	err  error
}

func init() {
	dir, name := os.Getenv(controlPlaneEnv), filepath.Base(os.Args[0])
	if dir == "" || name != "etcd" && name != "kube-apiserver" {
		return
	}
	real := filepath.Join(dir, name)
	env := os.Environ()
	if os.Getenv("GOGC") == "" {
		env = append(env, "GOGC="+controlPlaneGOGC)
	}
	if fd := os.Getenv(testsEndEnv); fd != "" {
		n, err := strconv.Atoi(fd)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testenv: %s: %s=%q is no file descriptor\n", name, testsEndEnv, fd)
			os.Exit(1)
		}
		os.Exit(superviseReal(real, env, n))
	}
	if err := dieWithParent(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %s: asking to die with the tests: %v\n", name, err)
		os.Exit(1)
	}
	if strconv.Itoa(os.Getppid()) != os.Getenv(parentEnv) {
		os.Exit(1) // the tests are gone already
	}
	err := syscall.Exec(real, append([]string{real}, os.Args[1:]...), env)
	fmt.Fprintf(os.Stderr, "testenv: starting %s: %v\n", real, err)
	os.Exit(1)
}

// superviseReal runs the binary real, with this process's arguments and env, until it
// ends or the pipe whose read end is descriptor testsEnd ends; it then kills it. It
// returns the exit code to end with.
//
// envtest stops a process by signalling its process group (SIGTERM, then SIGKILL after
// its timeout), and the real binary is in this one's group: it receives the signal
// itself. The supervisor only catches SIGTERM and SIGINT to outlive it and end as it
// ended. Relaying them would deliver them twice, and kube-apiserver exits on a second
// one at once, without its graceful shutdown.
func superviseReal(real string, env []string, testsEnd int) int {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	syscall.CloseOnExec(testsEnd) // the real binary has no use for it
	end := os.NewFile(uintptr(testsEnd), "the tests' end")
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, end) // nobody writes: it returns when the tests end
		close(ended)
	}()
	cmd := exec.Command(real, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: starting %s: %v\n", real, err)
		return 1
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	for {
		select {
		case <-signals:
		case <-ended:
			_ = cmd.Process.Kill()
			<-exited
			return 1
		case <-exited:
			status, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if status.Signaled() {
				// End as it did, by the same signal.
				signal.Reset(status.Signal())
				_ = syscall.Kill(os.Getpid(), status.Signal())
			}
			return cmd.ProcessState.ExitCode()
		}
	}
}

// dieWithTheTests makes the control plane of te, from the binaries in assets, die with
// the test binary, however it ends. On Linux without supervise, the kernel ties a child
// to the thread that started it: start must run on a thread that lives as long as the
// control plane (see start). It returns what removes the links it made.
func dieWithTheTests(te *envtest.Environment, assets string) (func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	setTestsEnd := os.Unsetenv(testsEndEnv)
	if supervise {
		testsEnd.once.Do(makeTestsEnd)
		if testsEnd.err != nil {
			return nil, fmt.Errorf("making the pipe that ends with the tests: %w", testsEnd.err)
		}
		setTestsEnd = os.Setenv(testsEndEnv, strconv.Itoa(testsEnd.read))
	}
	if err := errors.Join(setTestsEnd, os.Setenv(controlPlaneEnv, assets), os.Setenv(parentEnv, strconv.Itoa(os.Getpid()))); err != nil {
		return nil, err
	}
	// One folder holds what the control plane writes: the links, etcd's data and the API
	// server's certificates (left to envtest, they go to folders of its own, which a
	// killed test binary leaves behind: 120 MB each, on every check stopped at its first
	// failure). Its name carries the test binary's pid, so that the next start removes
	// it once that process is gone (removeLeftovers).
	removeLeftovers(os.TempDir())
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", runPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	remove := func() { _ = os.RemoveAll(dir) }
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if err := os.Symlink(self, filepath.Join(dir, name)); err != nil {
			remove()
			return nil, err
		}
	}
	if te.ControlPlane.Etcd == nil {
		te.ControlPlane.Etcd = &envtest.Etcd{}
	}
	te.ControlPlane.Etcd.Path = filepath.Join(dir, "etcd")
	te.ControlPlane.Etcd.DataDir = filepath.Join(dir, "etcd-data")
	te.ControlPlane.GetAPIServer().Path = filepath.Join(dir, "kube-apiserver")
	te.ControlPlane.GetAPIServer().CertDir = filepath.Join(dir, "kube-apiserver-certs")
	for _, sub := range []string{"etcd-data", "kube-apiserver-certs"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			remove()
			return nil, err
		}
	}
	return remove, nil
}

// runPrefix begins the name of the folder of a test binary's control plane, followed by
// the binary's pid and a dash.
const runPrefix = "testenv-run-"

// removeLeftovers removes from tmp the folders of control planes whose test binary is
// gone: killed, it never removed them.
func removeLeftovers(tmp string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return // nothing to tidy is no reason to fail the tests
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), runPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || processAlive(pid) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(tmp, e.Name()))
	}
}

// processAlive says whether a process of that pid runs (or is someone else's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// makeTestsEnd makes the pipe of testsEnd. Its read end is left open across exec, so
// that every process the test binary starts inherits it; its write end is not, so that
// the test binary holds the only one. The fork lock keeps a process started meanwhile
// from inheriting the write end before it is marked.
func makeTestsEnd() {
	var fds [2]int
	syscall.ForkLock.RLock()
	err := syscall.Pipe(fds[:])
	if err == nil {
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		testsEnd.err = err
		return
	}
	testsEnd.read, testsEnd.keep = fds[0], os.NewFile(uintptr(fds[1]), "the tests' end")
}
