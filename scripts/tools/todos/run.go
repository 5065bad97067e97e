package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// A run is what go test -json said.
type run struct {
	results  map[string]string   // a test's (or subtest's) result: pass, fail or skip
	outputs  map[string][]string // what each test printed
	failures []string            // the failed tests and subtests, in the order they ended
	text     strings.Builder     // go test -v's output
	build    []string            // the compiler's output
	other    []string            // what failed packages printed outside their tests
	failed   bool                // a package failed
}

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func readRun(in io.Reader) (*run, error) {
	r := &run{results: map[string]string{}, outputs: map[string][]string{}}
	pkgOutput := map[string][]string{}
	scanner := bufio.NewScanner(in)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		line := scanner.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event: go itself failed, before any package ran.
			r.build = append(r.build, string(line)+"\n")
			r.failed = true
			continue
		}
		switch e.Action {
		case "build-output":
			r.build = append(r.build, e.Output)
		case "build-fail":
			r.failed = true
		case "output":
			r.text.WriteString(e.Output)
			if e.Test == "" {
				pkgOutput[e.Package] = append(pkgOutput[e.Package], e.Output)
			} else {
				r.outputs[e.Test] = append(r.outputs[e.Test], e.Output)
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				if e.Action == "fail" {
					r.failed = true
					r.other = append(r.other, packageFailure(e.Package, pkgOutput[e.Package])...)
				}
				continue
			}
			r.results[e.Test] = e.Action
			if e.Action == "fail" {
				r.failures = append(r.failures, e.Test)
			}
		}
	}
	return r, scanner.Err()
}

// packageFailure keeps what a failed package printed outside its tests that says why:
// a panic, a timeout, a TestMain that could not start; not go test's summary lines.
func packageFailure(pkg string, lines []string) []string {
	var out []string
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if t == "" || t == "PASS" || t == "FAIL" || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "ok  \t") ||
			strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "coverage:") {
			continue
		}
		out = append(out, t)
	}
	if len(out) > 0 {
		out = append([]string{pkg + ":"}, out...)
	}
	return out
}

var location = regexp.MustCompile(`^\w[\w.-]*_test\.go:\d+: ?`)

// failure says in one or two lines why the first failing test of tests failed: the
// message of its first failing subtest.
func (r *run) failure(tests []string) []string {
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
		var msg []string
		for _, line := range r.outputs[leaf] {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
				continue
			}
			if t = location.ReplaceAllString(t, ""); t != "" {
				msg = append(msg, t)
			}
		}
		if len(msg) == 0 {
			return []string{leaf + " failed"}
		}
		out := []string{leaf + ": " + msg[0]}
		if len(msg) > 1 {
			out = append(out, shorten(strings.Join(strings.Fields(strings.Join(msg[1:], " ")), " "), 160))
		}
		return out
	}
	return nil
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s ... (V=1 shows all)", s[:n])
}

// untied says why the run failed where no task's test failed: the first failing test
// that no task names, or what a failed package printed outside its tests.
func (r *run) untied(l lesson) []string {
	named := map[string]bool{}
	for _, t := range l.Todos {
		for _, name := range t.Tests {
			named[name] = true
		}
	}
	for _, f := range r.failures {
		if !strings.Contains(f, "/") && !named[f] {
			return append([]string{"A test of no task fails:"}, r.failure([]string{f})...)
		}
	}
	return r.other
}

// failedText returns the compiler's output, what failed packages printed outside their
// tests, and the output of every test and subtest that failed, in the order they ended.
func (r *run) failedText() string {
	var b strings.Builder
	for _, line := range r.build {
		b.WriteString(line)
	}
	for _, line := range r.other {
		b.WriteString(line + "\n")
	}
	for _, test := range r.failures {
		for _, line := range r.outputs[test] {
			b.WriteString(line)
		}
	}
	return b.String()
}
