package scripts

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fixedPort matches a port that a script or a tools' test gives a manager or a debugger:
// a number assigned to a variable whose name ends in PORT, or its default in ${...:-}.
var fixedPort = regexp.MustCompile(`[A-Z_]*PORT(?:=|:-)"?([0-9]+)`)

// The kernel hands out the ports of its ephemeral range to every outgoing connection and
// to every listener on port 0: envtest's etcd and kube-apiserver, among the dozens of
// them that make test runs beside its walkthroughs. A fixed port in that range is free
// when a run checks it and taken a second later, and the manager that wanted it stops
// with "address already in use". Linux's range starts at 32768, macOS's at 49152: every
// fixed port stays below both.
func TestFixedPortsStayBelowTheEphemeralRange(t *testing.T) {
	const linuxEphemeralStart = 32768
	found := 0
	err := filepath.WalkDir(filepath.Join(top, "scripts"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		script, test := strings.HasSuffix(path, ".sh"), strings.HasSuffix(path, "_test.go")
		if d.IsDir() || !script && !test {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fixedPort.FindAllStringSubmatch(string(b), -1) {
			found++
			if port, _ := strconv.Atoi(m[1]); port >= linuxEphemeralStart {
				rel, _ := filepath.Rel(top, path)
				t.Errorf("%s: %s is in the kernel's ephemeral range (from %d on Linux): any listener on port 0 may hold it; pick one below",
					rel, m[0], linuxEphemeralStart)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Fatalf("found %d fixed ports in scripts/; the pattern no longer matches how they are written", found)
	}
}
