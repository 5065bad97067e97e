package scripts

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stockmac"
)

// top is the repository's top folder, from this package's.
var top, _ = filepath.Abs("../../../..")

// onAStockMac runs the bash line in the repository's top folder, with the tools a stock
// Mac has (stockmac) or, with gnu, those of this machine, and returns what it printed.
func onAStockMac(t *testing.T, gnu bool, line string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = top
	if !gnu {
		path, err := stockmac.Build(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(filepath.Join(path, "bash"), "-c", line)
		cmd.Dir = top
		cmd.Env = stockmac.Env(path)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The learner commands that this checkout runs in shell, each as the README gives it,
// print on a Mac what they print here.
func TestLearnerCommandsOnAStockMac(t *testing.T) {
	for _, c := range []struct {
		name, line string
	}{
		{"make help", "make help"},
		// Every command needs the binaries' key (the folder they are built into), which
		// common.sh computes as it is sourced.
		{"the binaries' key", "source scripts/lib/common.sh && echo \"$BIN\""},
		{"make env", "make env"},
		{"scripts/lessons.sh tracks", "scripts/lessons.sh tracks"},
		{"scripts/pins.sh check", "scripts/pins.sh check"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := onAStockMac(t, true, c.line)
			if err != nil {
				t.Fatalf("%s with this machine's tools: %v\n%s", c.line, err, want)
			}
			got, err := onAStockMac(t, false, c.line)
			if err != nil || got != want {
				t.Errorf("%s on a stock Mac: %v, printed:\n%s\nwith this machine's tools, it printed:\n%s", c.line, err, got, want)
			}
		})
	}
}

// now_ms counts milliseconds on a Mac too, whose date has no %N.
func TestNowMsOnAStockMac(t *testing.T) {
	out, err := onAStockMac(t, false, `source scripts/lib/common.sh && CLOCK=$(tool_path clock) &&
		a=$(now_ms) && sleep 0.3 && b=$(now_ms) && echo $((b - a >= 300 && b - a < 5000))`)
	if err != nil || out != "1\n" {
		t.Errorf("now_ms on a stock Mac: want two readings 0.3 s apart, got %v and:\n%s", err, out)
	}
}

// copy_listed copies what controller-gen wrote, each file to the same place in another
// folder, with a Mac's cp (no --parents, no -t).
func TestCopyListedOnAStockMac(t *testing.T) {
	out, err := onAStockMac(t, false, `source scripts/lib/common.sh && to=$(mktemp -d) &&
		controller_gen_outputs solutions/10-sidecarset | copy_listed solutions/10-sidecarset "$to" &&
		diff <(controller_gen_outputs solutions/10-sidecarset) <(cd "$to" && find . -type f | sed 's|^\./||' | sort) &&
		diff -r <(cd solutions/10-sidecarset && cat $(controller_gen_outputs .)) <(cd "$to" && cat $(controller_gen_outputs .)) &&
		rm -rf "$to" && controller_gen_outputs solutions/10-sidecarset | wc -l`)
	if err != nil || strings.TrimSpace(out) == "0" {
		t.Errorf("copy_listed on a stock Mac: %v, printed:\n%s", err, out)
	}
}
