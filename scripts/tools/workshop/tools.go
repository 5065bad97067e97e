package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/stage"
)

// buildTool builds the workshop's own tool scripts/tools/NAME (todos, lessongen) into
// .cache/tools and returns its path; go build does nothing when nothing changed, and
// with -trimpath a new clone of the same code compiles nothing again.
func buildTool(root, name string) (string, error) {
	out := filepath.Join(root, ".cache", "tools", name)
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "./"+name)
	cmd.Dir = filepath.Join(root, "scripts", "tools")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	return out, cmd.Run()
}

// readLesson reads lesson arg (1 or 01) of the checkout's lessons/index.json.
func readLesson(root, arg string) (index.Lesson, error) {
	n, err := stage.Number(arg)
	if err != nil {
		return index.Lesson{}, err
	}
	return index.ReadLesson(filepath.Join(root, "lessons", "index.json"), n)
}

// generate runs scripts/generate.sh (controller-gen) on the module dir. It finds this
// command through WORKSHOP_BIN, and so does not build it again.
func generate(root, dir string) error {
	cmd := exec.Command(filepath.Join(root, "scripts", "generate.sh"), dir)
	cmd.Env = os.Environ()
	if self, err := os.Executable(); err == nil {
		cmd.Env = append(cmd.Env, "WORKSHOP_BIN="+self)
	}
	// Callers may read this command's stdout (a stage's folder): generate.sh says on
	// stderr what it does.
	cmd.Stdout, cmd.Stderr = stderr, stderr
	return cmd.Run()
}

// generatedCache is the cache of controller-gen's outputs of the checkout root: keyed
// by what generates them, scripts/generate.sh, crddesc's code and the list of outputs
// (the stage package's generated.go), and by the built binaries' folder, which the
// pins of controller-gen name.
func generatedCache(root string) (stage.Cache, error) {
	dir, err := stage.DefaultDir()
	if err != nil {
		return stage.Cache{}, err
	}
	files := []string{filepath.Join(root, "scripts", "generate.sh"), filepath.Join(root, "scripts", "tools", "internal", "stage", "generated.go")}
	crddesc, err := filepath.Glob(filepath.Join(root, "scripts", "tools", "crddesc", "*.go"))
	if err != nil {
		return stage.Cache{}, err
	}
	h := sha256.New()
	for _, name := range append(files, crddesc...) {
		src, err := os.ReadFile(name)
		if err != nil {
			return stage.Cache{}, err
		}
		h.Write(src)
	}
	bin := "unbuilt"
	if target, err := os.Readlink(filepath.Join(root, ".cache", "bin", "current")); err == nil {
		bin = filepath.Base(target)
	}
	return stage.Cache{
		Dir:      dir,
		Key:      hex.EncodeToString(h.Sum(nil))[:12] + "-" + bin,
		Generate: func(dir string) error { return generate(root, dir) },
		MaxAge:   30 * 24 * time.Hour,
	}, nil
}
