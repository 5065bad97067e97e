// Command shlint fails on each construct of the workshop's shell scripts that a stock
// Mac lacks, naming FILE:LINE and the portable form. Learners mostly run macOS, whose
// /bin/bash is 3.2 and whose sed, cp, mv, date, base64, diff, stat, grep, xargs, find,
// readlink and sort are BSD's; it has no timeout, setsid, ss, nproc, flock or sha256sum.
// It parses each script with mvdan.cc/sh (bash syntax) and checks:
//
//   - bash 4 and later: associative arrays (declare/local -A), namerefs (-n), declare
//     -g, -l and -u, wait -n, ${x,,} ${x^^} and the other case modifications, ${x@Q},
//     negative subscripts ${a[-1]}, $BASHPID and the other newer variables, mapfile and
//     readarray, coproc, &>>, |&, ;;& and ;&, [[ -v ]], {var}> redirections, printf
//     %(...)T, and the shopt options bash 3.2 stops at;
//   - "${a[@]}" of an array that may be empty (declared as a=() or local -a a, or given
//     only words that may expand to nothing, such as ("$@")): under set -u, bash before
//     4.4 fails on it. ${a[@]+"${a[@]}"} is the portable form, and the only one this
//     accepts: an array empty in one place and filled in another is guarded at every
//     expansion;
//   - GNU-only options: sed -i without an attached suffix (and -r and long options),
//     date's %N and -d, base64 -w, any long option of cp or mv and their -t, -T and -u,
//     diff --color, stat -c, grep -P, xargs -r, find -printf, readlink -f, sort -V;
//     the command run by xargs, find -exec, env, nice, exec and command is checked too;
//   - commands a stock Mac lacks (timeout, setsid, ss, nproc, flock, sha256sum and
//     others), except where the script checks first that the command exists: in the
//     then-branch of `if command -v NAME ...`, or after `command -v NAME ... &&`, which
//     is how a fallback reads (command -v sha256sum >/dev/null && sha256sum || shasum -a 256).
//
// A command's name and options are known only when they are written out: `"$tool" -P`
// is not checked.
//
// Usage: shlint [-root DIR] [FILE...]
//
// Without FILEs, it checks every *.sh under DIR/scripts, and DIR/.ci/run.
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	root := flag.String("root", ".", "the repository's top folder")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		var err error
		if files, err = scripts(*root); err != nil {
			fail(err)
		}
	}
	bad := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		found, err := lint(file, src)
		if err != nil {
			fail(err)
		}
		name := file
		if rel, err := filepath.Rel(*root, file); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		for _, f := range found {
			fmt.Printf("%s:%s\n", name, f)
		}
		bad += len(found)
	}
	if bad > 0 {
		fail(fmt.Errorf("%d constructs of %d scripts are not on a stock Mac (bash 3.2, BSD tools): use the portable form each line gives", bad, len(files)))
	}
	fmt.Fprintf(os.Stderr, "shlint: no construct that bash 3.2 or a stock Mac's tools lack, in %d scripts\n", len(files))
}

// scripts lists the shell scripts the repository keeps: every *.sh under root/scripts,
// and .ci/run.
func scripts(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "scripts"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".sh") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ci := filepath.Join(root, ".ci", "run"); exists(ci) {
		files = append(files, ci)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no shell scripts under %s/scripts: is -root the repository's top folder?", root)
	}
	return files, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func sortFindings(found []finding) {
	sort.SliceStable(found, func(i, j int) bool { return found[i].Line < found[j].Line })
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "shlint: %v\n", err)
	os.Exit(1)
}
