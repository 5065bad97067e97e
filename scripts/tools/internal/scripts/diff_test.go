package scripts

import (
	"os/exec"
	"strings"
	"testing"
)

// diffFromSolution runs make diff-N FROM=solution's script on this checkout's lessons and
// solutions, and returns what it printed.
func diffFromSolution(n string) (string, error) {
	out, err := exec.Command("bash", "../../../diff.sh", n, "solution").CombinedOutput()
	return string(out), err
}

// FROM=solution shows what lesson N adds to the solution before it in its own track,
// which is not solution N-1 when another track's lessons come between: lesson 13
// continues lesson 02's ImoocPod, lesson 14 lesson 09's NodePool.
func TestDiffFromSolutionStartsAtTheTracksPreviousLesson(t *testing.T) {
	for n, want := range map[string][2]string{
		"2":  {"solutions/01-imoocpod/", "lessons/02-imoocpod-workflow/"},
		"13": {"solutions/02-imoocpod-workflow/", "lessons/13-imoocpod-versions/"},
		"14": {"solutions/09-nodepool-deploy/", "lessons/14-nodepool-apply/"},
	} {
		out, err := diffFromSolution(n)
		if err != nil || !strings.Contains(out, "diff -ruN "+want[0]) || !strings.Contains(out, " "+want[1]) {
			t.Errorf("make diff-%s FROM=solution: want %s against %s, got %v and:\n%.2000s", n, want[0], want[1], err, out)
		}
	}
}

// The first lesson of a track has no solution of its track before it: the script says so
// instead of comparing two operators.
func TestDiffFromSolutionSaysAFirstLessonStartsANewOperator(t *testing.T) {
	for n, track := range map[string]string{"1": "imoocpod", "3": "mydaemonset", "12": "clientgo"} {
		out, err := diffFromSolution(n)
		if err == nil || !strings.Contains(out, "lesson "+n+" starts a new operator, "+track) {
			t.Errorf("make diff-%s FROM=solution: want an error saying that lesson %s starts a new operator, %s; got %v and:\n%.2000s",
				n, n, track, err, out)
		}
	}
}
