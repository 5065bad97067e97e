// Package symptoms names the entry of shared/TROUBLESHOOTING.md that explains a known
// error message. The table is scripts/lib/symptoms.tsv: a row a symptom, its PATTERN (an
// extended regular expression), HEADING (part of the entry's title) and EXAMPLE (a real
// line the pattern must match), separated by tabs.
package symptoms

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

const (
	// Table is the table's file in the checkout.
	Table = "scripts/lib/symptoms.tsv"
	// Troubleshooting is the page the table points into.
	Troubleshooting = "shared/TROUBLESHOOTING.md"
)

// A Row is one known symptom.
type Row struct {
	Line    int // in the table, for error messages
	Pattern *regexp.Regexp
	Heading string
	Example string
}

// Known is the table of a checkout and the headings of its troubleshooting page.
type Known struct {
	Rows     []Row
	Headings []string // "11. Conflict: the object has been modified"
}

// Read reads the table and the page of the checkout root.
func Read(root string) (Known, error) {
	var k Known
	src, err := os.ReadFile(filepath.Join(root, Table))
	if err != nil {
		return k, err
	}
	for i, line := range strings.Split(string(src), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		re, err := regexp.Compile(f[0])
		if err != nil {
			return k, fmt.Errorf("%s:%d: pattern '%s': %w", Table, i+1, f[0], err)
		}
		k.Rows = append(k.Rows, Row{Line: i + 1, Pattern: re, Heading: f[1], Example: f[2]})
	}
	page, err := os.ReadFile(filepath.Join(root, Troubleshooting))
	if err != nil {
		return k, err
	}
	for _, line := range strings.Split(string(page), "\n") {
		if entryHeading.MatchString(line) {
			k.Headings = append(k.Headings, strings.TrimPrefix(line, "## "))
		}
	}
	return k, nil
}

var entryHeading = regexp.MustCompile(`^## [0-9]+\. `)

// entry returns the first heading that contains heading.
func (k Known) entry(heading string) (string, bool) {
	for _, h := range k.Headings {
		if strings.Contains(h, heading) {
			return h, true
		}
	}
	return "", false
}

// Explain writes, for each known symptom found in the files, the line that shows it and
// the troubleshooting entry that explains it; nothing when none is found. Each line is
// explained once, by the first (most precise) row that matches it. A file that cannot be
// read is passed over: a log that was never written shows nothing.
func (k Known) Explain(w io.Writer, files ...string) {
	var lines []string
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		s := bufio.NewScanner(f)
		s.Buffer(make([]byte, 1<<20), 1<<24)
		for s.Scan() {
			lines = append(lines, s.Text())
		}
		_ = f.Close()
	}
	seen := map[string]bool{}
	for _, row := range k.Rows {
		line, found := "", false
		for _, l := range lines {
			if row.Pattern.MatchString(l) {
				line, found = l, true
				break
			}
		}
		if !found || seen[line] {
			continue
		}
		entry, ok := k.entry(row.Heading)
		if !ok {
			continue
		}
		if len(seen) == 0 {
			fmt.Fprintf(w, "\033[1m==>\033[0m Known problems, explained in %s:\n", Troubleshooting)
		}
		seen[line] = true
		line = strings.TrimLeft(line, " \t")
		if len(line) > 200 {
			line = line[:200]
		}
		fmt.Fprintf(w, "    entry %s, for:\n      %s\n", entry, line)
	}
}

// Check returns what is wrong with the table: a pattern that does not match its
// example, a heading that no entry of the page has.
func (k Known) Check() []string {
	var bad []string
	for _, row := range k.Rows {
		if !row.Pattern.MatchString(row.Example) {
			bad = append(bad, fmt.Sprintf("line %d: pattern '%s' does not match its example", row.Line, row.Pattern))
		}
		if _, ok := k.entry(row.Heading); !ok {
			bad = append(bad, fmt.Sprintf("line %d: no entry of %s is titled '%s'", row.Line, Troubleshooting, row.Heading))
		}
	}
	return bad
}
