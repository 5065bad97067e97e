package scripts

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fuzzTarget runs fuzz_target with a go command of its own that prints output and
// exits with status, and returns what fuzz_target printed.
func fuzzTarget(t *testing.T, output string, status int) (string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "output"), []byte(output), 0o644); err != nil {
		t.Fatal(err)
	}
	writeCommand(t, dir, "go", "cat "+filepath.Join(dir, "output")+"\nexit "+strconv.Itoa(status)+"\n")
	return runWithCommandsOf(dir, `source ../../../lib/common.sh && source ../../../lib/fuzz.sh && fuzz_target 10s FuzzRoundTrip ./api/v1`)
}

// What Go 1.26 printed in a CI run when -fuzztime ended while a worker was busy.
const deadlineRace = `fuzz: elapsed: 9s, execs: 69943 (8301/sec), new interesting: 6 (total: 48)
fuzz: elapsed: 11s, execs: 72536 (1291/sec), new interesting: 6 (total: 48)
--- FAIL: FuzzRoundTrip (11.02s)
    context deadline exceeded
FAIL
exit status 1
FAIL	example.com/api/v1	11.026s
`

// The coordinator's own deadline, reported as a failure, is not one: the search ran
// its time and wrote no failing input.
func TestFuzzTargetPassesGosOwnDeadline(t *testing.T) {
	out, err := fuzzTarget(t, deadlineRace, 1)
	if err != nil || !strings.Contains(out, "golang/go#75804") {
		t.Errorf("fuzz_target: %v, output:\n%s", err, out)
	}
}

// An input that fails the target fails the run, even when its message is the same
// words.
func TestFuzzTargetFailsOnAFailingInput(t *testing.T) {
	crash := `fuzz: elapsed: 3s, execs: 1000 (333/sec), new interesting: 1 (total: 5)
--- FAIL: FuzzRoundTrip (3.10s)
    --- FAIL: FuzzRoundTrip (0.00s)
        roundtrip_test.go:40: context deadline exceeded

    Failing input written to testdata/fuzz/FuzzRoundTrip/582528ddfad69eb5
    To re-run:
    go test -run=FuzzRoundTrip/582528ddfad69eb5
FAIL
exit status 1
FAIL	example.com/api/v1	3.126s
`
	for name, output := range map[string]string{
		"a failing input": crash,
		"a failed build":  "api/v1/x.go:3:1: syntax error\nFAIL\texample.com/api/v1 [build failed]\n",
		"a worker that stopped with another error": "--- FAIL: FuzzRoundTrip (4.00s)\n    fuzzing process hung or terminated unexpectedly: exit status 2\nFAIL\n",
	} {
		if out, err := fuzzTarget(t, output, 1); err == nil || strings.Contains(out, "golang/go#75804") {
			t.Errorf("fuzz_target with %s: %v, output:\n%s", name, err, out)
		}
	}
}

// A search that finds nothing passes.
func TestFuzzTargetPasses(t *testing.T) {
	if out, err := fuzzTarget(t, "fuzz: elapsed: 10s, execs: 500 (50/sec)\nPASS\nok  \texample.com/api/v1\t10.1s\n", 0); err != nil {
		t.Errorf("fuzz_target: %v, output:\n%s", err, out)
	}
}
