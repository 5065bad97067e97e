// Package result is what make check-N found, kept for make hint-N and make progress:
// the todos tool writes it after each check, the workshop command reads it.
package result

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// A Result is the state of a lesson's tasks at its last check.
type Result struct {
	Done  int `json:"done"`  // the tasks done
	Total int `json:"total"` // the lesson's tasks
	// Failed: go test failed (a test, a build, a package outside its tests).
	Failed bool `json:"failed"`
	// First is the first task not done, 0 when every task is done.
	First int `json:"first"`
	// Shown: the checklist showed a failure (a failed assertion, a build error); when
	// go test failed without one, the check points to its log instead.
	Shown bool `json:"shown"`
}

// Complete says whether every task was done and nothing failed.
func (r Result) Complete() bool { return !r.Failed && r.Done == r.Total }

// Path is where the result of lesson folder (lessons/NN-name, or its base name) is
// kept in the checkout root.
func Path(root, folder string) string {
	return filepath.Join(root, ".cache", "check", filepath.Base(folder)+".result.json")
}

// Write writes r to the file name, making its folder.
func Write(name string, r Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

// Read reads the file name; a file that does not exist is os.ErrNotExist (never
// checked).
func Read(name string) (Result, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return Result{}, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}
