package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/result"
)

// A run is what go test -json said.
type run struct {
	results  map[string]string   // a test's (or subtest's) result: pass, fail or skip
	seconds  map[string]float64  // how long a test that passed or failed ran
	outputs  map[string][]string // what each test printed
	failures []string            // the failed tests and subtests, in the order they ended
	text     strings.Builder     // go test -v's output
	build    []string            // the compiler's output
	other    []string            // what failed packages printed outside their tests
	failed   bool                // a package failed
	// stuck holds, for each test that never returned (go test's -timeout ended its
	// package), why: the frame it was stuck in.
	stuck map[string]string
	// packages maps each test to its package, whose import path tells the learner's own
	// frames from the libraries' in a stack.
	packages map[string]string
	// running holds, for each package, when its test binary started and when its last
	// test, or the binary itself, ended before go test was stopped.
	running map[string]*span
	// stopped says that go test was stopped at the first failure, before every package
	// had run.
	stopped bool
	// grades are the test tasks' grades, by task: their rows do not come from go test.
	grades map[int]result.Grade
}

// A span is a stretch of time.
type span struct{ start, end time.Time }

// elapsed is how long the tests ran: how long at least one test binary was running (to
// the test that settled the first failure, when go test was stopped there), without the
// builds before and between them. go test links a package's test binary while another
// one runs; a link while none runs is left out.
func (r *run) elapsed() time.Duration {
	spans := make([]span, 0, len(r.running))
	for _, s := range r.running {
		if s.end.After(s.start) {
			spans = append(spans, *s)
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start.Compare(b.start) })
	var total time.Duration
	var end time.Time // of the spans counted so far
	for _, s := range spans {
		if s.end.After(end) {
			from := s.start
			if end.After(from) {
				from = end
			}
			total += s.end.Sub(from)
			end = s.end
		}
	}
	return total
}

// ran says whether a test binary ran.
func (r *run) ran() bool { return len(r.running) > 0 }

// firstFailure returns the first of task's tests that failed.
func (r *run) firstFailure(task index.Todo) (string, bool) {
	for _, name := range r.failures {
		if slices.Contains(task.Tests, name) {
			return name, true
		}
	}
	return "", false
}

type event struct {
	Time    time.Time
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func newRun() *run {
	return &run{results: map[string]string{}, seconds: map[string]float64{}, running: map[string]*span{}, outputs: map[string][]string{}, stuck: map[string]string{}, packages: map[string]string{}}
}

// read adds go test's events to r, and calls enough, if not nil, after each test and
// each package has ended: once it returns true, it is not called again (the caller stops
// go test, and what is left of the output is read all the same). A package whose tasks'
// tests are settled is stopped with its other tests: those of later tasks, which the
// checklist shows as not run.
func (r *run) read(in io.Reader, enough func(*run) bool) error {
	pkgOutput := map[string][]string{}
	// Everything a package printed, in order: a timeout's stack follows the test that ran
	// last, whichever test go test's output gives it to.
	all := map[string][]string{}
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		line := scanner.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			if r.stopped {
				continue // a line cut short as go test was stopped
			}
			if goProgress.Match(line) {
				// go's own progress, the first time a module is needed on this machine:
				// for the log, not a failure.
				r.text.Write(line)
				r.text.WriteString("\n")
				continue
			}
			// Not an event: go itself failed, before any package ran.
			r.build = append(r.build, string(line)+"\n")
			r.failed = true
			continue
		}
		if e.Test != "" {
			r.packages[e.Test] = e.Package
		}
		if !e.Time.IsZero() {
			s := r.running[e.Package]
			if e.Action == "start" && s == nil {
				r.running[e.Package] = &span{start: e.Time, end: e.Time}
			}
			// Until go test is stopped: what it does after that, nobody waits for.
			if s != nil && !r.stopped && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") && e.Time.After(s.end) {
				s.end = e.Time
			}
		}
		switch e.Action {
		case "build-output":
			r.build = append(r.build, e.Output)
		case "build-fail":
			r.failed = true
		case "output":
			r.text.WriteString(e.Output)
			all[e.Package] = append(all[e.Package], e.Output)
			if e.Test == "" {
				pkgOutput[e.Package] = append(pkgOutput[e.Package], e.Output)
			} else {
				r.outputs[e.Test] = append(r.outputs[e.Test], e.Output)
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				if e.Action == "fail" {
					r.failed = true
					if !r.timedOut(e.Package, all[e.Package]) && !r.stopped {
						r.other = append(r.other, packageFailure(e.Package, pkgOutput[e.Package])...)
					}
				}
				if enough != nil && !r.stopped && enough(r) {
					r.stopped = true
				}
				continue
			}
			r.results[e.Test] = e.Action
			r.seconds[e.Test] = e.Elapsed
			if e.Action == "fail" {
				r.failures = append(r.failures, e.Test)
			}
			if enough != nil && !r.stopped && enough(r) {
				r.stopped = true
			}
		}
	}
	return scanner.Err()
}

// goProgress matches a line go prints on its own as it fetches what a build needs.
var goProgress = regexp.MustCompile(`^go: (downloading|finding|extracting) `)

var (
	timedOut    = regexp.MustCompile(`^panic: test timed out after (\S+)`)
	runningTest = regexp.MustCompile(`^\t\t(\S+) \(.*\)$`)
)

// timedOut finds go test's "panic: test timed out" in what a failed package printed: the
// tests still running then never returned, and no event says so. Each becomes a failed
// test, with the frame it was stuck in.
func (r *run) timedOut(pkg string, lines []string) bool {
	for i, line := range lines {
		m := timedOut.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			continue
		}
		var running []string
		for _, l := range lines[i+1:] {
			if t := strings.TrimRight(l, "\n"); t == "\trunning tests:" {
				continue
			} else if n := runningTest.FindStringSubmatch(t); n != nil {
				running = append(running, n[1])
			} else {
				break
			}
		}
		if len(running) == 0 {
			return false
		}
		stacks := parseStacks(lines[i+1:])
		for _, name := range running {
			if r.results[name] != "" {
				continue
			}
			r.results[name] = "fail"
			r.packages[name] = pkg
			r.failures = append(r.failures, name)
			where := ""
			if f, ok := ownFrame(stacks, pkg, name); ok {
				where = ": stuck in " + f.String()
			}
			r.stuck[name] = fmt.Sprintf("never returned%s (go test stopped it after %s)", where, m[1])
		}
		return true
	}
	return false
}

// A frame of a goroutine's stack, as a panic prints it.
type frame struct {
	Func string // github.com/x/y/internal/controller.(*Controller).Run
	File string // /path/to/internal/controller/controller.go
	Line string
}

// String is the frame as a learner reads it: (*Controller).Run (controller.go:180).
func (f frame) String() string {
	fn := f.Func
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	if _, rest, ok := strings.Cut(fn, "."); ok {
		fn = rest
	}
	return fmt.Sprintf("%s (%s:%s)", fn, path.Base(f.File), f.Line)
}

type goroutine struct {
	header string // goroutine 7 [chan receive]:
	frames []frame
}

var (
	goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[.*\]:$`)
	frameFile       = regexp.MustCompile(`^\t(\S+\.go):(\d+)`)
	frameArgs       = regexp.MustCompile(`\((0x[0-9a-f?]+|\.\.\.|\{[^)]*|, )*\)$`)
)

// parseStacks reads the goroutines' stacks a panic prints.
func parseStacks(lines []string) []goroutine {
	var out []goroutine
	fn := ""
	for _, l := range lines {
		t := strings.TrimRight(l, "\n")
		switch {
		case goroutineHeader.MatchString(t):
			out = append(out, goroutine{header: t})
			fn = ""
		case len(out) == 0:
		case strings.HasPrefix(t, "\t"):
			if m := frameFile.FindStringSubmatch(t); m != nil && fn != "" {
				out[len(out)-1].frames = append(out[len(out)-1].frames, frame{Func: fn, File: m[1], Line: m[2]})
			}
			fn = ""
		case strings.HasPrefix(t, "created by "):
			fn = "" // where the goroutine started, not where it is
		default:
			fn = frameArgs.ReplaceAllString(t, "")
		}
	}
	return out
}

// ownFrame finds, in the stacks of a package's tests, the learner's own frame: a
// function of the lesson's module (the package's module, not a library's and not the
// runtime's), outside the tests if possible, nearest to where the goroutine stands. It
// looks first at the test's own goroutine, then at the others.
func ownFrame(stacks []goroutine, pkg, test string) (frame, bool) {
	module := moduleOf(pkg)
	own := func(f frame) bool {
		return strings.HasPrefix(f.Func, module+"/") || strings.HasPrefix(f.Func, module+".")
	}
	testFunc := strings.SplitN(test, "/", 2)[0]
	var testFrame *frame
	pick := func(g goroutine) (frame, bool) {
		for _, f := range g.frames {
			if !own(f) {
				continue
			}
			if !strings.HasSuffix(f.File, "_test.go") {
				return f, true
			}
			if testFrame == nil {
				testFrame = &f
			}
		}
		return frame{}, false
	}
	// The test's goroutines first: those whose stack runs through its function.
	for _, g := range stacks {
		for _, f := range g.frames {
			if strings.Contains(f.Func, "."+testFunc) {
				if fr, ok := pick(g); ok {
					return fr, true
				}
				break
			}
		}
	}
	for _, g := range stacks {
		if fr, ok := pick(g); ok {
			return fr, true
		}
	}
	if testFrame != nil {
		return *testFrame, true
	}
	return frame{}, false
}

// moduleOf guesses a package's module from its import path: the path up to the folder
// of the lesson or solution (lessons/NN-name/...), or up to internal/, api/ or cmd/.
func moduleOf(pkg string) string {
	parts := strings.Split(pkg, "/")
	for i, p := range parts {
		if (p == "lessons" || p == "solutions") && i+1 < len(parts) {
			return strings.Join(parts[:i+2], "/")
		}
	}
	for i, p := range parts {
		if i > 0 && (p == "internal" || p == "api" || p == "cmd" || p == "pkg") {
			return strings.Join(parts[:i], "/")
		}
	}
	return pkg
}

// packageFailure keeps what a failed package printed outside its tests that says why:
// a panic, a timeout, a TestMain that could not start; not go test's summary lines, and
// not the manager's logs and stacks as it shuts down after a failed test.
func packageFailure(pkg string, lines []string) []string {
	var out []string
	inStack := false
	for _, line := range lines {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t == "PASS" || t == "FAIL" || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "ok  \t") ||
			strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "coverage:"):
			continue
		case logLine.MatchString(line):
			inStack = true // a log line with its stack trace
			continue
		case inStack && (strings.HasPrefix(line, "\t") || stackFunc.MatchString(t)):
			continue
		case goroutineHeader.MatchString(t):
			inStack = true
			continue
		}
		inStack = false
		out = append(out, t)
	}
	if len(out) > 0 {
		out = append([]string{pkg + ":"}, out...)
	}
	return out
}

var (
	// A line the manager logged (zap's development encoder, or klog).
	logLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\S+\s+(DEBUG|INFO|WARN|ERROR|DPANIC|PANIC|FATAL)\s|[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ )`)
	// A function line of a stack trace: pkg/path.Func or pkg.(*Type).Method.
	stackFunc = regexp.MustCompile(`^[\w.-]+(/[\w.~-]+)*\.[\w(*)\[\].]+(\(.*\))?$`)
)

// A report is what a test said when it failed (t.Error, t.Fatal, gomega): its
// "file_test.go:42:" line and the lines indented under it, without the indentation.
// The manager's logs, printed as they happen, are not indented and never part of one.
type report struct {
	where string // x_test.go:42
	lines []string
}

var reportHeader = regexp.MustCompile(`^( {4,})(\S+\.go:\d+): ?(.*)$`)

// reports returns the reports in a test's output, in order.
func reports(output []string) []report {
	var out []report
	indent := ""
	for _, line := range output {
		line = strings.TrimRight(line, "\n")
		if m := reportHeader.FindStringSubmatch(line); m != nil && (indent == "" || len(m[1]) <= len(indent)-4 || !strings.HasPrefix(line, indent)) {
			out = append(out, report{where: m[2]})
			indent = m[1] + "    "
			if m[3] != "" {
				out[len(out)-1].lines = append(out[len(out)-1].lines, m[3])
			}
			continue
		}
		if indent != "" && strings.HasPrefix(line, indent) {
			out[len(out)-1].lines = append(out[len(out)-1].lines, strings.TrimPrefix(line, indent))
			continue
		}
		if indent != "" && strings.TrimSpace(line) == "" {
			continue
		}
		indent = ""
	}
	return out
}

var (
	eventuallyTimedOut = regexp.MustCompile(`^(Timed out|Failed|Told to stop trying) after ([\d.]+s)\.?$`)
	eventuallyFailedAt = regexp.MustCompile(`^The function passed to (Eventually|Consistently) (failed|returned) .*?(\S+\.go:\d+)( with:)?$`)
	gomegaObject       = regexp.MustCompile(`^<[^>|]+ \| 0x[0-9a-f]+>: ?(.*)$`)
)

// message turns a report into the lines a learner reads: the innermost message first
// (what the function passed to Eventually said, the error's text) with gomega's
// description, then the rest (Expected ...), then where an Eventually gave up. Object
// dumps ({...} after an error's text) are left out: the log has them.
func (rep report) message() (first, rest string) {
	lines := rep.lines
	var after string
	if len(lines) > 0 {
		if m := eventuallyTimedOut.FindStringSubmatch(lines[0]); m != nil {
			after = "gave up after " + m[2]
			lines = lines[1:]
			if len(lines) > 0 {
				if m := eventuallyFailedAt.FindStringSubmatch(lines[0]); m != nil {
					after = fmt.Sprintf("%s %s at %s", m[1], after, path.Base(m[3]))
					lines = lines[1:]
				}
			}
		}
	}
	var kept []string
	dump := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if dump != "" {
			// An object dump ends where it started, with its closing brace.
			if strings.HasPrefix(l, dump+"}") {
				dump = ""
			}
			continue
		}
		switch {
		case t == "" || t == "occurred":
			continue
		case gomegaObject.MatchString(t):
			if v := gomegaObject.FindStringSubmatch(t)[1]; v != "" {
				kept = append(kept, v)
			}
			continue
		case strings.HasPrefix(t, "{") && !strings.HasSuffix(t, "}"):
			dump = l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			continue
		case strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") && len(kept) > 0:
			continue // a one-line dump after the error's text
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return after, ""
	}
	first = kept[0]
	rest = strings.Join(kept[1:], " ")
	// "Expected success, but got an error:" says little; the error's text is the news.
	if (strings.HasSuffix(first, "but got an error:") || first == "Unexpected error:") && len(kept) > 1 {
		first = strings.TrimSuffix(first, ":") + ": " + kept[1]
		rest = strings.Join(kept[2:], " ")
	}
	if after != "" {
		rest = strings.TrimSpace(rest + " (" + after + ")")
	}
	return first, rest
}

var panicLine = regexp.MustCompile(`^panic: (.*?)( \[recovered.*\])?$`)

// panicked says why a test panicked: the panic's value and the learner's own frame.
func (r *run) panicked(test string) (string, bool) {
	// A subtest's panic is printed after its parent's --- FAIL line: under the parent.
	for name := test; ; {
		if msg, ok := r.panickedIn(name, test); ok {
			return msg, true
		}
		i := strings.LastIndex(name, "/")
		if i < 0 {
			return "", false
		}
		name = name[:i]
	}
}

func (r *run) panickedIn(name, test string) (string, bool) {
	out := r.outputs[name]
	for i, line := range out {
		m := panicLine.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil || strings.HasPrefix(m[1], "test timed out") {
			continue
		}
		msg := "panicked: " + m[1]
		stacks := parseStacks(out[i+1:])
		// The frame that panicked: the first own frame below panic(...).
		if len(stacks) > 0 {
			g := stacks[0]
			for j, f := range g.frames {
				if f.Func == "panic" || strings.HasPrefix(f.Func, "runtime.gopanic") {
					g.frames = g.frames[j+1:]
					break
				}
			}
			if f, ok := ownFrame([]goroutine{g}, r.packages[test], test); ok {
				msg += ", in " + f.String()
			}
		}
		return msg, true
	}
	return "", false
}

// A failure is what the checklist shows of a failed test: a line or two, and the text
// in which a known symptom is looked for (the whole of what the test reported).
type failure struct {
	lines []string
	text  string
}

// failure says in one or two lines why the first failing test of tests failed: the
// assertion of its first failing subtest, never the manager's logs around it.
func (r *run) failure(tests []string) failure {
	for _, name := range tests {
		if r.results[name] != "fail" {
			continue
		}
		leaf := name
		for _, f := range r.failures {
			if strings.HasPrefix(f, name+"/") {
				leaf = f
				break
			}
		}
		return r.failureOf(leaf)
	}
	return failure{}
}

func (r *run) failureOf(leaf string) failure {
	if why, ok := r.stuck[leaf]; ok {
		return failure{lines: []string{leaf + " " + why}, text: why}
	}
	reps := reports(r.outputs[leaf])
	if len(reps) > 0 {
		first, rest := reps[0].message()
		out := []string{leaf + ": " + first}
		if rest != "" {
			out = append(out, shorten(strings.Join(strings.Fields(rest), " "), 160))
		}
		var text strings.Builder
		for _, rep := range reps {
			text.WriteString(strings.Join(rep.lines, "\n") + "\n")
		}
		return failure{lines: out, text: text.String()}
	}
	if why, ok := r.panicked(leaf); ok {
		return failure{lines: []string{leaf + " " + why}, text: why}
	}
	return failure{lines: []string{leaf + " failed, without saying why (V=1 shows its output)"}}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s ... (V=1 shows all)", s[:n])
}

// untiedHeading comes before the failure of a test that no task names.
const untiedHeading = "A test of no task fails:"

// untied says why the run failed where no task's test failed: the first failing test
// that no task names, or what a failed package printed outside its tests.
func (r *run) untied(l index.Lesson) failure {
	named := map[string]bool{}
	for _, t := range l.Todos {
		for _, name := range t.Tests {
			named[name] = true
		}
	}
	for _, f := range r.failures {
		if !strings.Contains(f, "/") && !named[f] {
			fl := r.failure([]string{f})
			fl.lines = append([]string{untiedHeading}, fl.lines...)
			return fl
		}
	}
	return failure{lines: r.other, text: strings.Join(r.other, "\n")}
}
