//go:build linux

package testenv

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"
)

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
			t.Errorf("process %s runs without GOGC=%s", pid, want)
		}
	}
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
