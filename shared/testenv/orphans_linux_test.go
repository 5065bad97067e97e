//go:build linux

package testenv

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
// after its timeout) takes its etcd and kube-apiserver with it.
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
	for _, how := range []string{"panic", "exit", "kill"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestTheControlPlaneDiesWithTheTests$", "-test.v")
			cmd.Env = append(os.Environ(), dieEnv+"="+how, crdsEnv+"="+t.TempDir())
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pids []string
			lines := bufio.NewScanner(out)
			for lines.Scan() {
				if rest, ok := strings.CutPrefix(lines.Text(), "control plane: "); ok {
					pids = strings.Fields(rest)
					if how == "kill" {
						_ = cmd.Process.Kill()
					}
				}
			}
			_ = cmd.Wait()
			if len(pids) != 2 {
				t.Fatalf("the test binary did not start a control plane of two processes: %q", pids)
			}
			deadline := time.Now().Add(10 * time.Second)
			for _, pid := range pids {
				for running(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("%s (pid %s) still runs after the test binary ended by %s", command(pid), pid, how)
					}
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
}

// A package's Env starts its control plane at the first use, once: tests that never use
// it (those of pure functions) never wait for one.
func TestTheControlPlaneStartsAtTheFirstUse(t *testing.T) {
	e := unstartedEnv(t, Options{})
	// A test of a pure function may need the scheme, and nothing else.
	if e.Scheme() != scheme.Scheme {
		t.Errorf("the Env's scheme is not the one its Options give")
	}
	if got := children(); len(got) != 0 {
		t.Fatalf("processes run before the Env's first use: %q", got)
	}
	e.Namespace(t)
	first := children()
	if len(first) != 2 {
		t.Fatalf("the first use did not start a control plane of two processes: %q", first)
	}
	e.Namespace(t)
	if got := children(); strings.Join(got, " ") != strings.Join(first, " ") {
		t.Errorf("the second use changed the control plane: %q, then %q", first, got)
	}
}

// The control plane collects its garbage less often than Go's default (controlPlaneGOGC),
// unless the tests' environment says otherwise.
func TestTheControlPlaneRunsWithItsOwnGOGC(t *testing.T) {
	want := os.Getenv("GOGC")
	if want == "" {
		want = controlPlaneGOGC
	}
	e := unstartedEnv(t, Options{})
	e.Namespace(t)
	pids := children()
	if len(pids) != 2 {
		t.Fatalf("the first use did not start a control plane of two processes: %q", pids)
	}
	for _, pid := range pids {
		b, err := os.ReadFile("/proc/" + pid + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		if env := strings.Split(string(b), "\x00"); !slices.Contains(env, "GOGC="+want) {
			t.Errorf("%s runs without GOGC=%s", command(pid), want)
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
	fmt.Printf("control plane: %s\n", strings.Join(children(), " "))
	switch how {
	case "panic":
		panic("a test panics")
	case "exit":
		os.Exit(1)
	}
	select {} // until killed
}

// children returns the ids of this process's children.
func children() []string {
	var out []string
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// running tells whether process pid runs: it exists and is no zombie.
func running(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func command(pid string) string {
	b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
	name, _, _ := strings.Cut(string(b), "\x00")
	return filepath.Base(name)
}
