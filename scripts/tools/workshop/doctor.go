package main

// workshop doctor: make doctor.
//
// It checks that this machine is ready for the workshop and prints one line per check:
// ok, note (something still to do, nothing broken), warn or problem, each but ok
// followed by the command to run or the fix, chosen for the platform, which it names
// first (macOS on Apple silicon or Intel, with Homebrew or not; WSL; Linux; and the Docker
// runtime). Needs nothing built, so it is the first thing to run on a new machine and the
// thing to run when make lesson-N fails oddly.
//
// Exit status: 1 when a problem blocks the learner (Go too old, too little disk, a port
// the manager needs is taken, a built binary of the wrong version, WSL 1), else 0.
// Binaries not built yet are a note, not a problem: every target that needs them depends
// on make binaries, which builds them on the way.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The levels of the doctor's lines.
const (
	levelOK       = "ok"
	levelNote     = "note"
	levelWarn     = "warn"
	levelProblem  = "problem"
	levelPlatform = "platform"
)

var levelColours = map[string]string{
	levelOK: "\033[32m", levelNote: "\033[36m", levelWarn: "\033[33m", levelProblem: "\033[31m", levelPlatform: "\033[1m",
}

// A doctorReport prints the doctor's lines and counts the problems.
type doctorReport struct {
	out      io.Writer
	colour   bool
	problems int
}

func (r *doctorReport) line(level, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if r.colour {
		fmt.Fprintf(r.out, "%s%-8s\033[0m %s\n", levelColours[level], level, text)
	} else {
		fmt.Fprintf(r.out, "%-8s %s\n", level, text)
	}
	if level == levelProblem {
		r.problems++
	}
}

// fix and run print what to do about the line before: a fix to apply, or a command.
func (r *doctorReport) fix(text string) { fmt.Fprintf(r.out, "%-8s   fix: %s\n", "", text) }
func (r *doctorReport) run(text string) { fmt.Fprintf(r.out, "%-8s   run: %s\n", "", text) }

// A doctor checks one checkout on one platform.
type doctor struct {
	ctx      context.Context
	root     string
	pins     map[string]string
	platform platform
	report   *doctorReport
}

func doctorCommand(root string, args []string) error {
	if len(args) > 0 {
		return errors.New("usage: workshop doctor")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	pins, err := readPins(root)
	if err != nil {
		return err
	}
	ctx := context.Background()
	d := &doctor{
		ctx: ctx, root: root, pins: pins,
		platform: platformOf(gatherPlatformFacts(ctx, root)),
		report:   &doctorReport{out: os.Stdout, colour: isCharDevice(os.Stdout)},
	}
	return d.check()
}

// check runs every check, and fails when one found a problem.
func (d *doctor) check() error {
	r := d.report
	r.line(levelPlatform, "%s", d.platform.describe())
	for _, a := range d.platform.platformAdvice() {
		r.line(a.level, "%s", a.text)
		r.fix(a.fix)
	}
	d.checkGo()
	d.checkDisk()
	d.checkBinaries()
	d.checkCluster()
	d.checkPorts()
	d.checkOrphans()
	d.checkContext()
	d.checkDocker()
	if r.problems > 0 {
		fmt.Fprintf(r.out, "\n%d problem(s) above; fix them and run make doctor again.\n", r.problems)
		return errFailed{}
	}
	fmt.Fprintln(r.out, "\nNothing blocks you. Next: make solution-1")
	return nil
}

// goVersionPattern splits a Go version (1.26.0, 1.27rc1, 1.27beta1, 1.27-devel) after
// its go and devel prefixes are gone.
var goVersionPattern = regexp.MustCompile(`^([0-9]+)\.([0-9]+)(\.([0-9]+)|rc([0-9]+)|beta([0-9]+))?(.*)$`)

// goVersionKey turns a Go version (1.26.0, go1.26.3, go1.27rc1, devel go1.27-abc) into a
// number that sorts the way Go orders releases: 1.27beta1 < 1.27rc1 < 1.27.0 < 1.27.1; a
// devel build of 1.27 comes before all of them. An unreadable version is 0.
func goVersionKey(v string) int {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "devel "), "go")
	m := goVersionPattern.FindStringSubmatch(v)
	if m == nil {
		return 0
	}
	stage, n := 9, 0
	switch {
	case m[4] != "":
		n, _ = strconv.Atoi(m[4])
	case m[5] != "":
		stage = 5
		n, _ = strconv.Atoi(m[5])
	case m[6] != "":
		stage = 3
		n, _ = strconv.Atoi(m[6])
	case m[7] != "":
		stage = 1
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major*100000000 + minor*100000 + stage*1000 + n
}

// checkGo checks the version the repository's commands really run. go.work's `go` line
// can make an older go fetch and run a newer toolchain (GOTOOLCHAIN=auto), so `go env`
// runs in the repository; when that fetch fails (offline), the go on PATH is what runs.
func (d *doctor) checkGo() {
	r, want := d.report, d.pins["GO_VERSION"]
	if _, err := exec.LookPath("go"); err != nil {
		r.line(levelProblem, "no go on PATH")
		r.fix(d.platform.installGo(want))
		return
	}
	have, _, err := runFor(d.ctx, time.Minute, d.root, nil, "go", "env", "GOVERSION")
	if err != nil || have == "" {
		have, _, err = runFor(d.ctx, 10*time.Second, d.root, []string{"GOTOOLCHAIN=local"}, "go", "env", "GOVERSION")
	}
	if err != nil || have == "" {
		have = "unknown"
	}
	if goVersionKey(have) >= goVersionKey(want) {
		r.line(levelOK, "Go %s (the workshop needs %s or newer)", have, want)
		return
	}
	r.line(levelProblem, "Go %s is older than %s (scripts/versions.env)", have, want)
	toolchain, _, _ := runFor(d.ctx, 10*time.Second, d.root, nil, "go", "env", "GOTOOLCHAIN")
	if strings.HasPrefix(toolchain, "local") {
		unset := ""
		if os.Getenv("GOTOOLCHAIN") != "" {
			unset = "unset GOTOOLCHAIN; "
		}
		r.fix(fmt.Sprintf("GOTOOLCHAIN=local keeps Go from fetching go%s: %sgo env -w GOTOOLCHAIN=auto (or %s)", want, unset, d.platform.installGo(want)))
		return
	}
	r.fix(fmt.Sprintf("%s (Go 1.21 or newer can fetch it: go env -w GOTOOLCHAIN=go%s+auto)", d.platform.installGo(want), want))
}

// binaries returns the folder the current pins name, and the one .cache/bin/current
// points to ("" when there is none).
func (d *doctor) binaries() (pinned, current string) {
	pinned, _ = pinnedBinName(d.root, d.pins)
	current, _ = os.Readlink(filepath.Join(d.root, ".cache", "bin", "current"))
	return pinned, current
}

// checkDisk asks for free space. A full build leaves about 1 GiB of Go modules, 0.6 GiB
// of binaries per pin folder and a few GiB of Go build cache (which make test grows to
// about 10 GiB). Measuring those caches takes seconds or minutes on a cold disk and says
// little about what is still to come, so this asks for free space instead: 5 GiB before
// the first build, 2 GiB after it for the managers and tests each lesson builds. Every
// filesystem the caches live on counts, not only the repository's.
func (d *doctor) checkDisk() {
	r := d.report
	need := uint64(5)
	pinned, current := d.binaries()
	if isExecutable(filepath.Join(d.root, ".cache", "bin", pinned, "kubectl")) && current == pinned {
		need = 2
	}
	dirs := []string{d.root}
	if _, err := exec.LookPath("go"); err == nil {
		for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
			if dir, _, err := runFor(d.ctx, 10*time.Second, d.root, nil, "go", "env", name); err == nil && dir != "" {
				dirs = append(dirs, dir)
			}
		}
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		// A cache not made yet lands on its parent's disk.
		for {
			if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
				break
			}
			dir = filepath.Dir(dir)
		}
		free, mount, err := freeSpace(dir)
		if err != nil {
			r.line(levelWarn, "cannot measure the free space of %s: %v", dir, err)
			continue
		}
		if seen[mount] {
			continue
		}
		seen[mount] = true
		gib := free >> 30
		if gib >= need {
			r.line(levelOK, "%d GiB free on %s (holds %s; want %d GiB)", gib, mount, dir, need)
		} else {
			r.line(levelProblem, "only %d GiB free on %s (holds %s); the workshop wants %d GiB", gib, mount, dir, need)
			r.fix("free space there (" + d.platform.freeDisk() + ")")
		}
	}
}

// A builtBinary is one binary of make binaries, and how it says its version.
type builtBinary struct {
	name, pin string // pin: the variable of versions.env its version is; "" for none
	args      []string
}

var builtBinaries = []builtBinary{
	{"etcd", "ETCD_VERSION", []string{"--version"}},
	{"kube-apiserver", "KUBERNETES_VERSION", []string{"--version"}},
	{"kube-controller-manager", "KUBERNETES_VERSION", []string{"--version"}},
	{"kube-scheduler", "KUBERNETES_VERSION", []string{"--version"}},
	{"kubectl", "KUBERNETES_VERSION", []string{"version", "--client"}},
	{"kwok", "KWOK_VERSION", []string{"--version"}},
	{"kwokctl", "KWOK_VERSION", []string{"--version"}},
	{"controller-gen", "CONTROLLER_TOOLS_VERSION", []string{"--version"}},
	{"kustomize", "KUSTOMIZE_VERSION", []string{"version"}},
	{"helm", "HELM_VERSION", []string{"version", "--short"}},
	{"kind", "KIND_VERSION", []string{"version"}},
	{"goimports", "", nil}, // goimports has no version flag
	{"kubebuilder", "KUBEBUILDER_VERSION", []string{"version"}},
	{"dlv", "DELVE_VERSION", []string{"version"}},
}

// checkBinaries checks that .cache/bin/current is the folder the current pins name,
// and that each binary in it says the version they pin.
func (d *doctor) checkBinaries() {
	r := d.report
	build := "make binaries (about 20 minutes on a fresh 2-core machine, about a minute with a warm Go cache)"
	pinned, current := d.binaries()
	switch {
	case current == "":
		r.line(levelNote, "no binaries built yet (.cache/bin/current); make lesson-N builds them first, or now:")
		r.run(build)
		return
	case current != pinned:
		r.line(levelNote, ".cache/bin/current is %s, built for other pins; this checkout wants %s", current, pinned)
		r.run(build)
		return
	}
	r.line(levelOK, ".cache/bin/current is %s, the folder the current pins name", current)
	for _, b := range builtBinaries {
		path := filepath.Join(d.root, ".cache", "bin", current, b.name)
		want := d.pins[b.pin]
		if b.name == "etcd" || b.name == "dlv" {
			want = strings.TrimPrefix(want, "v") // etcd and dlv print their versions without the v
		}
		switch {
		case !isExecutable(path):
			r.line(levelNote, "%s is not built yet", b.name)
			r.run(build)
		case b.pin == "":
			r.line(levelOK, "%s", b.name)
		default:
			stdout, stderr, _ := runFor(d.ctx, 10*time.Second, "", nil, path, b.args...)
			if strings.Contains(stdout+"\n"+stderr, want) {
				r.line(levelOK, "%s %s", b.name, want)
				continue
			}
			// build-binaries.sh skips a binary that exists, so only removing the folder helps.
			r.line(levelProblem, "%s does not report %s, the version scripts/versions.env pins", b.name, want)
			r.fix("rm -r .cache/bin/" + current + " && " + build)
		}
	}
}

// isExecutable says whether path is a file this user may run.
func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0
}

// checkCluster says whether the embedded cluster is up: down is normal, make lesson-N
// starts it when it needs it.
func (d *doctor) checkCluster() {
	name := os.Getenv("WORKSHOP_CLUSTER")
	if name == "" {
		name = "workshop"
	}
	if _, _, err := runFor(d.ctx, 15*time.Second, d.root, nil, filepath.Join(d.root, "scripts", "cluster.sh"), "running"); err == nil {
		d.report.line(levelOK, "the embedded cluster kwok-%s is up (make cluster-down stops it)", name)
		return
	}
	d.report.line(levelNote, "the embedded cluster is not up; make lesson-N starts it, or now: make cluster-up")
}

// The ports make lesson-N gives the manager (the defaults of scripts/run-stage.sh), and
// where it listens on each: metrics and probes on 127.0.0.1, webhooks on every address.
var managerPorts = []struct {
	variable string
	port     int
	host     string
}{
	{"METRICS_PORT", 18080, "127.0.0.1"},
	{"PROBE_PORT", 18081, "127.0.0.1"},
	{"WEBHOOK_PORT", 19443, ""},
}

// checkPorts checks that the manager's ports are free.
func (d *doctor) checkPorts() {
	r := d.report
	for _, p := range managerPorts {
		port := p.port
		if v := os.Getenv(p.variable); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > 65535 {
				r.line(levelProblem, "%s=%s is no port number", p.variable, v)
				r.fix(fmt.Sprintf("unset %s, or give it a number from 1024 to 65535", p.variable))
				continue
			}
			port = n
		}
		if portFree(p.host, port) {
			r.line(levelOK, "port %d (%s) is free", port, p.variable)
			continue
		}
		holder, pid := d.portHolder(port)
		if holder == "" {
			r.line(levelProblem, "port %d (%s) is taken by another process (lsof -nP -iTCP:%d -sTCP:LISTEN names it)", port, p.variable, port)
			r.fix(fmt.Sprintf("pick another port: make lesson-N %s=%d", p.variable, port+10))
			continue
		}
		r.line(levelProblem, "port %d (%s) is taken by %s, pid %s", port, p.variable, holder, pid)
		r.fix(fmt.Sprintf("stop %s (kill %s) or pick another port: make lesson-N %s=%d", holder, pid, p.variable, port+10))
	}
}

// portFree says whether the manager could listen on host:port, and nothing else answers
// there on 127.0.0.1. Both are asked: macOS lets a listener on 127.0.0.1 start beside one
// on every address (BSD sockets prefer the more specific one), Linux does not.
func portFree(host string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return true
	}
	conn.Close()
	return false
}

// portHolder names the process listening on port, and its pid, as lsof tells them
// (macOS has lsof; most Linux systems too); "" when it cannot. lsof's -F output is
// one field a line, each named by its first letter: p the pid, c the command.
func (d *doctor) portHolder(port int) (name, pid string) {
	if _, err := exec.LookPath("lsof"); err != nil {
		return "", ""
	}
	out, _, _ := runFor(d.ctx, 5*time.Second, "", nil, "lsof", "-nP", fmt.Sprintf("-iTCP:%d", port), "-sTCP:LISTEN", "-Fpc")
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "p") && pid == "":
			pid = line[1:]
		case strings.HasPrefix(line, "c") && name == "":
			name = line[1:]
		}
	}
	if pid == "" || name == "" {
		return "", ""
	}
	return name, pid
}

// orphanedControlPlanes returns the pids, in the output of ps -eo pid=,ppid=,args= (the
// same on macOS and Linux), of test API servers and etcds whose test is gone: their
// parent is init (pid 1), and their folder a k8s_test_framework_* temporary one.
func orphanedControlPlanes(ps string) []string {
	var pids []string
	for line := range strings.Lines(ps) {
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[1] != "1" {
			continue
		}
		args := strings.Join(fields[2:], " ")
		if strings.Contains(args, "k8s_test_framework_") && (strings.Contains(args, "kube-apiserver") || strings.Contains(args, "etcd")) {
			pids = append(pids, fields[0])
		}
	}
	return pids
}

// checkOrphans looks for test control planes left behind: a check or test killed before
// it stopped its envtest API server and etcd leaves them running, and on a small machine
// they slow every later run down.
func (d *doctor) checkOrphans() {
	ps, _, err := runFor(d.ctx, 10*time.Second, "", nil, "ps", "-eo", "pid=,ppid=,args=")
	if err != nil {
		d.report.line(levelNote, "cannot list processes (ps: %v), so test API servers left running were not looked for", err)
		return
	}
	pids := orphanedControlPlanes(ps)
	if len(pids) == 0 {
		d.report.line(levelOK, "no test API servers left running by killed checks")
		return
	}
	d.report.line(levelWarn, "test API servers or etcds left running by killed checks (pids %s) use memory and CPU", strings.Join(pids, " "))
	d.report.fix("kill " + strings.Join(pids, " "))
}

// checkContext checks the kube context: the managers refuse any but a workshop
// cluster's (shared/cluster).
func (d *doctor) checkContext() {
	r := d.report
	_, current := d.binaries()
	kubectl := filepath.Join(d.root, ".cache", "bin", current, "kubectl")
	if current == "" || !isExecutable(kubectl) {
		var err error
		if kubectl, err = exec.LookPath("kubectl"); err != nil {
			r.line(levelNote, "no kubectl yet, kube context not checked (make binaries builds one)")
			return
		}
	}
	context, _, _ := runFor(d.ctx, 10*time.Second, "", nil, kubectl, "config", "current-context")
	switch {
	case context == "":
		r.line(levelOK, "no current kube context; make lesson-N uses the embedded cluster")
	case strings.HasPrefix(context, "kind-") || strings.HasPrefix(context, "kwok-workshop"):
		r.line(levelOK, "kube context %s is a workshop cluster; make lesson-N uses it", context)
	case context == os.Getenv("WORKSHOP_ALLOW_CONTEXT"):
		r.line(levelWarn, "kube context %s is not a workshop cluster, but WORKSHOP_ALLOW_CONTEXT lets your controllers use it", context)
	default:
		r.line(levelWarn, "kube context %s is not a workshop cluster: the managers refuse it, and make lesson-N uses the embedded cluster instead", context)
		r.fix("eval $(make -s env) (the embedded cluster), or WORKSHOP_ALLOW_CONTEXT=" + context + " if you mean it")
	}
}

// checkDocker: Docker is optional; kind needs it, the embedded cluster does not.
func (d *doctor) checkDocker() {
	r, p := d.report, d.platform
	switch {
	case p.docker == dockerNone:
		r.line(levelOK, "no Docker: fine, the embedded cluster needs none (for make kind-up: %s)", p.installDocker())
	case p.facts.DockerOS != "":
		r.line(levelOK, "Docker is running (%s): make kind-up works too", p.docker)
	case strings.Contains(strings.ToLower(p.facts.DockerErr), "permission denied"):
		r.line(levelNote, "Docker is installed but you may not use it; the embedded cluster needs none. For kind:")
		r.run(p.permitDocker())
	default:
		r.line(levelNote, "Docker (%s) is installed but not running; the embedded cluster needs none. For kind:", p.docker)
		r.run(p.startDocker())
	}
}
