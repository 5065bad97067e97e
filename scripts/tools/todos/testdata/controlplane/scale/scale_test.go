// Package scale holds the later tasks' tests, for todos' tests: task 3's starts a control
// plane (shared/testenv), writes its processes' ids to the file TODOS_TEST_CONTROL_PLANE
// names and sleeps; go test is stopped before it ends, and the control plane must end
// with it.
package scale

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{Scheme: scheme.Scheme, CRDDirectoryPaths: []string{"."}}, &env))
}

func TestScaleUp(t *testing.T) {}

func TestScaleUpTwice(t *testing.T) {}

func TestScaleDown(t *testing.T) {
	env.Client()
	if err := os.WriteFile(os.Getenv("TODOS_TEST_CONTROL_PLANE"), []byte(strings.Join(descendants(t), " ")), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Minute)
}

// descendants returns the ids of the processes this one started, and of those they
// started, as ps lists them.
func descendants(t *testing.T) []string {
	ps := exec.Command("ps", "-A", "-o", "pid=", "-o", "ppid=")
	out, err := ps.Output()
	if err != nil {
		t.Fatal(err)
	}
	children := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] != strconv.Itoa(ps.Process.Pid) {
			children[f[1]] = append(children[f[1]], f[0])
		}
	}
	var found []string
	for next := []string{strconv.Itoa(os.Getpid())}; len(next) > 0; next = next[1:] {
		next = append(next, children[next[0]]...)
		found = append(found, children[next[0]]...)
	}
	return found
}
