//go:build unix

package testenv

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
)

// dieEnv tells the test binary, run again by TestTheControlPlaneDiesWithTheTests, to
// start a control plane, print its processes and end without stopping it, as it says.
const dieEnv = "TESTENV_TEST_END_BY"

// crdsEnv names the folder of the CRDs that control plane installs: an empty one, as
// this module has none of its own.
const crdsEnv = "TESTENV_TEST_CRDS"

// A test binary that ends without TestMain's stop (a test's panic, and go test's
// -timeout is one; os.Exit; a kill, which go test sends to a binary that does not end
// after its timeout) takes its etcd and kube-apiserver with it: on Linux by the kernel,
// and on every unix by the supervisors, which Linux runs here too.
func TestTheControlPlaneDiesWithTheTests(t *testing.T) {
	if how := os.Getenv(dieEnv); how != "" {
		endWithoutStopping(how)
	}
	if testing.Short() {
		t.Skip("starts control planes")
	}
	if _, err := BinaryAssetsDirectory(); err != nil {
		t.Skip(err)
	}
	ways := []string{"supervisor"}
	if runtime.GOOS == "linux" {
		ways = append([]string{"kernel"}, ways...)
	}
	for _, way := range ways {
		for _, how := range []string{"panic", "exit", "kill"} {
			t.Run(way+"/"+how, func(t *testing.T) {
				cmd := exec.Command(os.Args[0], "-test.run=^TestTheControlPlaneDiesWithTheTests$", "-test.v")
				cmd.Env = append(os.Environ(), dieEnv+"="+how, crdsEnv+"="+t.TempDir())
				// The kernel's way starts etcd and kube-apiserver; a supervisor's, a
				// supervisor for each, which starts the real binary.
				want, supervised := 2, "0"
				if way == "supervisor" {
					want, supervised = 4, "1"
				}
				cmd.Env = append(cmd.Env, superviseEnv+"="+supervised)
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stderr = os.Stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				var pids []int
				lines := bufio.NewScanner(out)
				for lines.Scan() {
					if rest, ok := strings.CutPrefix(lines.Text(), "control plane: "); ok {
						for _, f := range strings.Fields(rest) {
							pid, _ := strconv.Atoi(f)
							pids = append(pids, pid)
						}
						if how == "kill" {
							_ = cmd.Process.Kill()
						}
					}
				}
				_ = cmd.Wait()
				if len(pids) != want {
					t.Fatalf("the test binary did not start a control plane of %d processes: %v", want, pids)
				}
				deadline := time.Now().Add(10 * time.Second)
				for _, pid := range pids {
					for running(pid) {
						if time.Now().After(deadline) {
							t.Fatalf("%s (pid %d) still runs after the test binary ended by %s", command(pid), pid, how)
						}
						time.Sleep(50 * time.Millisecond)
					}
				}
			})
		}
	}
}

// endWithoutStopping starts a control plane, prints its processes' ids and ends as how
// says, never stopping it.
func endWithoutStopping(how string) {
	e := &Env{opts: Options{Scheme: scheme.Scheme, CRDDirectoryPaths: []string{os.Getenv(crdsEnv)}}}
	if err := e.start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	pids, err := descendants()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Printf("control plane: %s\n", strings.Join(pids, " "))
	switch how {
	case "panic":
		panic("a test panics")
	case "exit":
		os.Exit(1)
	}
	select {} // until killed
}

// descendants returns the ids of the processes this one started, and of those they
// started, as ps lists them (Linux's and macOS's ps both take these options).
func descendants() ([]string, error) {
	ps := exec.Command("ps", "-A", "-o", "pid=", "-o", "ppid=")
	out, err := ps.Output()
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	children := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] != strconv.Itoa(ps.Process.Pid) {
			children[f[1]] = append(children[f[1]], f[0])
		}
	}
	var found []string
	for next := []string{strconv.Itoa(os.Getpid())}; len(next) > 0; {
		pid := next[0]
		next = append(next[1:], children[pid]...)
		found = append(found, children[pid]...)
	}
	return found, nil
}

// running tells whether process pid runs: it exists and is no zombie.
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err == nil && !strings.HasPrefix(strings.TrimSpace(string(out)), "Z")
}

// command returns the name of process pid's command.
func command(pid int) string {
	out, _ := exec.Command("ps", "-o", "comm=", "-p", strconv.Itoa(pid)).Output()
	return strings.TrimSpace(string(out))
}
