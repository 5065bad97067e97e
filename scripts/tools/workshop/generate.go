package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stage"
)

// workshop generate-like DIR REF gives the module DIR the controller-gen outputs of the
// module REF ("" for none) when both read the same inputs, and else those generated for
// the same inputs before (stage.Cache), running scripts/generate.sh only for inputs
// never seen. scripts/lessons.sh derives every stage with it.
func generateLikeCommand(root string, args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: workshop generate-like DIR REF (REF may be \"\")")
	}
	c, err := generatedCache(root)
	if err != nil {
		return err
	}
	return c.GenerateLike(args[0], args[1])
}

// workshop generate-lesson DIR runs scripts/generate.sh on a lesson unless nothing it
// reads or writes changed since it last ran there: the API types, the +kubebuilder
// markers anywhere in the module, and the generated files themselves. controller-gen
// type-checks the whole module, several seconds of each make check-N otherwise.
func generateLessonCommand(root string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: workshop generate-lesson DIR")
	}
	return generateLesson(root, args[0], generate)
}

func generateLesson(root, dir string, generate func(root, dir string) error) error {
	name := filepath.Base(dir)
	stamp := filepath.Join(root, ".cache", "check", name+".generated")
	key, err := lessonGeneratedKey(root, dir)
	if err != nil {
		return err
	}
	if kept, err := os.ReadFile(stamp); err == nil && strings.TrimSpace(string(kept)) == key {
		say("The CRDs and RBAC of lessons/%s are up to date with your markers", name)
		return nil
	}
	say("Regenerating the CRDs and RBAC of lessons/%s from your API types and markers", name)
	if err := generate(root, dir); err != nil {
		return err
	}
	if key, err = lessonGeneratedKey(root, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(stamp), 0o755); err != nil {
		return err
	}
	return os.WriteFile(stamp, []byte(key+"\n"), 0o644)
}

// lessonGeneratedKey is a digest of controller-gen's version, the module's inputs and
// its generated files.
func lessonGeneratedKey(root, dir string) (string, error) {
	h := sha256.New()
	// No controller-gen yet: generate.sh says so when it runs.
	version, _ := exec.Command(filepath.Join(root, ".cache", "bin", "current", "controller-gen"), "--version").Output()
	h.Write(version)
	inputs, err := stage.Inputs(dir)
	if err != nil {
		return "", err
	}
	h.Write([]byte(inputs + "\n"))
	outputs, err := stage.Outputs(dir)
	if err != nil {
		return "", err
	}
	for _, rel := range outputs {
		src, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\n", rel)
		h.Write(src)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// workshop generated-files DIR prints, one per line and relative to DIR, the files
// controller-gen wrote into the module DIR (stage.Outputs), for the scripts.
func generatedFilesCommand(root string, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: workshop generated-files DIR")
	}
	outputs, err := stage.Outputs(args[0])
	for _, rel := range outputs {
		fmt.Println(rel)
	}
	return err
}

// workshop stage-dir lessons|solutions N prints the folder of lesson or solution N.
func stageDirCommand(root string, args []string) error {
	if len(args) != 2 || args[0] != "lessons" && args[0] != "solutions" {
		return fmt.Errorf("usage: workshop stage-dir lessons|solutions N")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	dir, err := stage.Dir(abs, args[0], args[1])
	if err != nil {
		return err
	}
	fmt.Println(dir)
	return nil
}
