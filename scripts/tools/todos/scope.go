package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

// testFunc finds the tests and fuzz targets a _test.go file declares: a task may name
// either.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w*)\(`)

// scope prints, one per line, the packages of the module in dir that hold a test of tasks
// 1 to upto of lesson l: go test on them alone says what a whole run says of those
// tasks. The packages left out hold only later tasks' tests, which a run stopped at the
// first failure (-failfast, and todos -stop) shows as not run anyway; within a package
// kept, every test runs in its order, so a later task's test that fails before an
// earlier task's still shows.
func scope(w io.Writer, l index.Lesson, dir string, upto int) error {
	if upto < 1 || upto > len(l.Todos) {
		return fmt.Errorf("lesson %d has the tasks 1 to %d (got %d)", l.Number, len(l.Todos), upto)
	}
	where, err := testPackages(dir)
	if err != nil {
		return err
	}
	var packages []string
	for _, t := range l.Todos[:upto] {
		for _, name := range t.Tests {
			pkg, ok := where[name]
			if !ok {
				return fmt.Errorf("lesson %d, task %d: no _test.go file under %s declares %s", l.Number, t.ID, dir, name)
			}
			if !slices.Contains(packages, pkg) {
				packages = append(packages, pkg)
			}
		}
	}
	slices.Sort(packages)
	for _, pkg := range packages {
		fmt.Fprintln(w, pkg)
	}
	return nil
}

// testPackages maps each test function of the module in dir to its package, as go test
// names it relative to dir (./internal/controller).
func testPackages(dir string) (map[string]string, error) {
	where := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(rel)
		if rel == "." {
			pkg = "."
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			where[string(m[1])] = pkg
		}
		return nil
	})
	return where, err
}
