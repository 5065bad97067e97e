package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The index of the lessons, lessons/index.json: what make check-N, make hint-N and make
// progress read about each lesson's tasks. lessongen writes a lesson's entry when it
// writes the lesson; nobody edits it.
type index struct {
	Comment string   `json:"//"`
	Lessons []lesson `json:"lessons"`
}

type lesson struct {
	Number   int    `json:"number"`
	Title    string `json:"title"`
	Operator string `json:"operator"` // the kind the lesson's controller manages
	Folder   string `json:"folder"`   // lessons/NN-name, and its solution solutions/NN-name
	Todos    []todo `json:"todos"`
}

const indexComment = "Written by scripts/tools/lessongen from the //lesson: markers of the solutions (make generate); do not edit."

// updateIndex writes the entry of the lesson in folder to (lessons/NN-name) into the
// index file, keeping every other lesson's.
func updateIndex(file, from, to, title string, todos []todo) error {
	var idx index
	src, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(src, &idx); err != nil {
			return fmt.Errorf("%s: %w (remove it and run make generate)", file, err)
		}
	}
	name := filepath.Base(to)
	number, err := strconv.Atoi(strings.SplitN(name, "-", 2)[0])
	if err != nil {
		return fmt.Errorf("%s: a lesson's folder starts with its number, as in 01-imoocpod", to)
	}
	operator, err := operatorKind(from)
	if err != nil {
		return err
	}
	entry := lesson{Number: number, Title: title, Operator: operator, Folder: "lessons/" + name, Todos: todos}
	if entry.Todos == nil {
		entry.Todos = []todo{}
	}
	idx.Comment = indexComment
	idx.Lessons = slices.DeleteFunc(idx.Lessons, func(l lesson) bool { return l.Number == number })
	idx.Lessons = append(idx.Lessons, entry)
	slices.SortFunc(idx.Lessons, func(a, b lesson) int { return a.Number - b.Number })
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(idx); err != nil {
		return err
	}
	return os.WriteFile(file, out.Bytes(), 0o644)
}

var crdKind = regexp.MustCompile(`(?m)^    kind: (\w+)$`)

// operatorKind returns the kind of the first CRD in a stage's config/crd/bases.
func operatorKind(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "config", "crd", "bases", "*.yaml"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("%s: no CRD in config/crd/bases to name the operator by (run scripts/generate.sh on it first)", dir)
	}
	slices.Sort(files)
	src, err := os.ReadFile(files[0])
	if err != nil {
		return "", err
	}
	m := crdKind.FindSubmatch(src)
	if m == nil {
		return "", fmt.Errorf("%s: no spec.names.kind", files[0])
	}
	return string(m[1]), nil
}
