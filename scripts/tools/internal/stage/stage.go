// Package stage knows the folders of the workshop's stages (lessons/NN-name,
// solutions/NN-name) and what controller-gen writes into them: which files, from which
// inputs, and a cache of its outputs keyed by those inputs.
package stage

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var number = regexp.MustCompile(`^[0-9]+$`)

// Number reads a lesson's number as a learner gives it: 1 or 01.
func Number(arg string) (int, error) {
	if !number.MatchString(arg) {
		return 0, fmt.Errorf("lesson numbers are numbers, like 1 or 01 (got '%s')", arg)
	}
	return strconv.Atoi(arg) // base 10: 08 is 8
}

// Dir returns the folder of lesson or solution n (kind is lessons or solutions; n may
// be 1 or 01) in the checkout root.
func Dir(root, kind, n string) (string, error) {
	num, err := Number(n)
	if err != nil {
		return "", err
	}
	matches, err := filepath.Glob(filepath.Join(root, kind, fmt.Sprintf("%02d-*", num)))
	if err != nil {
		return "", err
	}
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			return m, nil
		}
	}
	names, _ := filepath.Glob(filepath.Join(root, "lessons", "[0-9]*"))
	for i, name := range names {
		names[i] = filepath.Base(name)
	}
	return "", fmt.Errorf("there is no %s/%02d-*; the lessons are: %s", kind, num, strings.Join(names, " "))
}
