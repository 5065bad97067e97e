package main

// workshop diff N [solution]: make diff-N and make diff-N FROM=solution.
//
// It shows what a learner writes in lesson N: lesson N against solution N. With
// "solution", it shows what lesson N adds to the stage before: the solution of the lesson
// before it in its track against lesson N (solution 02 against lesson 13). Only code: module
// paths, import blocks (the editor writes those), README.md, go.sum, what controller-gen
// generates and dist/ (derived from config/) are left out. Both stages are copied, so cleaned, into a temporary folder and
// compared there by the system's diff -ruN (macOS and Linux both have one), under their
// names relative to the repository (lessons/02-imoocpod-workflow), as a reader expects.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stage"
)

func diffCommand(root string, args []string) error {
	return diffStages(root, args, os.Stdout, isCharDevice(os.Stdout))
}

// diffStages writes to out the diff that args (N, or N solution) ask for, coloured when
// colour is true.
func diffStages(root string, args []string, out io.Writer, colour bool) (err error) {
	if len(args) == 0 || len(args) > 2 {
		return errors.New("usage: workshop diff N [solution]")
	}
	if len(args) == 2 && args[1] != "solution" && args[1] != "" {
		return fmt.Errorf("FROM=%s: FROM takes one value, solution (make diff-%s FROM=solution), or none", args[1], args[0])
	}
	var left, right string
	if len(args) == 2 && args[1] == "solution" {
		if right, err = stage.Dir(root, "lessons", args[0]); err != nil {
			return err
		}
		track, before, err := trackOf(root, right)
		if err != nil {
			return err
		}
		if before == "" {
			n, _ := strconv.Atoi(args[0])
			return fmt.Errorf("lesson %d starts a new operator, %s; no solution of its track comes before it, so there is nothing to compare. make diff-%d shows what is left to write", n, track, n)
		}
		left = filepath.Join(root, "solutions", before)
	} else {
		if left, err = stage.Dir(root, "lessons", args[0]); err != nil {
			return err
		}
		if right, err = stage.Dir(root, "solutions", args[0]); err != nil {
			return err
		}
	}

	tmp, err := os.MkdirTemp("", "workshop-diff-")
	if err != nil {
		return err
	}
	defer removeTemp(tmp, &err)
	names := make([]string, 2)
	for i, dir := range []string{left, right} {
		names[i] = filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir)))
		if err := normalizeStage(dir, filepath.Join(tmp, names[i])); err != nil {
			return err
		}
	}

	// diff repeats its options in each file's header: pass only the ones a reader needs.
	cmd := exec.Command("diff", "-ruN", names[0], names[1])
	cmd.Dir = tmp
	cmd.Stderr = os.Stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running diff: %w", err)
	}
	copyErr := copyDiff(out, pipe, colour)
	err = cmd.Wait()
	// diff exits 1 when the folders differ, which is the point; 2 means it failed.
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("diff -ruN %s %s: %w", names[0], names[1], err)
	}
	return copyErr
}

// GNU diff's colours (--color's default palette): Apple's diff has none, so they are
// added here, the same on every system.
const (
	colourHeader = "\033[1m"
	colourHunk   = "\033[36m"
	colourRemove = "\033[31m"
	colourAdd    = "\033[32m"
	colourOff    = "\033[0m"
)

// copyDiff copies diff's output in to out, line by line, coloured when colour is true.
func copyDiff(out io.Writer, in io.Reader, colour bool) error {
	if !colour {
		_, err := io.Copy(out, in)
		return err
	}
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			if _, err := w.WriteString(colourLine(line)); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil {
			return err
		}
	}
}

// colourLine colours one line of a unified recursive diff, keeping its newline outside
// the colour so that a pager's line stays whole.
func colourLine(line string) string {
	text, newline := strings.CutSuffix(line, "\n")
	var c string
	switch {
	case strings.HasPrefix(text, "diff "), strings.HasPrefix(text, "--- "), strings.HasPrefix(text, "+++ "):
		c = colourHeader
	case strings.HasPrefix(text, "@@"):
		c = colourHunk
	case strings.HasPrefix(text, "-"):
		c = colourRemove
	case strings.HasPrefix(text, "+"):
		c = colourAdd
	default:
		return line
	}
	if newline {
		return c + text + colourOff + "\n"
	}
	return c + text + colourOff
}

// stageModulePath matches the module path of any lesson or solution: two stages differ
// in it everywhere, which says nothing.
var stageModulePath = regexp.MustCompile(`github\.com/kube-workshop/operator-workshop/(lessons|solutions)/[0-9]{2}-[a-z0-9-]+`)

// normalizeStage copies the stage src to dest without what would only be noise in a
// diff: README.md and go.sum (any folder's), controller-gen's outputs, the module path
// (MODULE in its place) and the contents of import blocks (which packages the code needs
// is goimports' business: an import block becomes `import (...)`).
func normalizeStage(src, dest string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dest, rel)
		if d.Name() == "README.md" || d.Name() == "go.sum" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case stage.IsOutput(filepath.ToSlash(rel)), strings.HasPrefix(filepath.ToSlash(rel), "dist/"):
			// What controller-gen writes, and dist/, which scripts/dist.sh derives from
			// config/: the learner writes neither.
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		data = stageModulePath.ReplaceAll(data, []byte("MODULE"))
		if strings.HasSuffix(path, ".go") {
			data = collapseImportBlocks(data)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, info.Mode().Perm()); err != nil {
			return err
		}
		// diff's headers show each file's time: the stage's, not the copy's.
		return os.Chtimes(target, info.ModTime(), info.ModTime())
	})
}

// collapseImportBlocks replaces each import block of the Go source src, from its
// `import (` line to its `)` line, by the line `import (...)`.
func collapseImportBlocks(src []byte) []byte {
	var out strings.Builder
	inBlock := false
	for _, line := range strings.SplitAfter(string(src), "\n") {
		text := strings.TrimSuffix(line, "\n")
		switch {
		case inBlock:
			inBlock = text != ")"
		case text == "import (":
			inBlock = true
			out.WriteString("import (...)" + line[len(text):])
		default:
			out.WriteString(line)
		}
	}
	return []byte(out.String())
}

// isTerminal says whether f is a terminal (a character device): where colour helps, and
// not a pipe or a file, where its escape codes would be noise.
func isCharDevice(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
