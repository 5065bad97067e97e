package stage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A Cache keeps what controller-gen wrote for each set of inputs it read: content
// addressed (Dir/Key/inputs), so every checkout on the machine shares it, as they share
// Go's build cache. The steps of a lesson and the mistakes of a solution mostly change
// code alone, and controller-gen type-checks the whole module, seconds each time: in a
// new clone, scripts/verify.sh ran it for 25 sets of inputs, over a minute, when the
// checkout kept its own.
type Cache struct {
	// Dir is the cache's folder (DefaultDir).
	Dir string
	// Key names the generators: what they write depends on their inputs and on them.
	Key string
	// Generate writes controller-gen's outputs into a module (scripts/generate.sh).
	Generate func(dir string) error
	// MaxAge: what no checkout used for that long goes (the inputs of edits since
	// undone, and the outputs of generators since changed, are never asked for again).
	MaxAge time.Duration
}

// DefaultDir is the cache's folder beside Go's build cache:
// ${XDG_CACHE_HOME:-~/.cache}/operator-workshop/generated.
func DefaultDir() (string, error) {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "operator-workshop", "generated"), nil
}

// GenerateLike gives the module dir the controller-gen outputs of the module ref when
// both read the same inputs (ref may be "": none), and else those generated for the
// same inputs before, generating them only for inputs never seen.
func (c Cache) GenerateLike(dir, ref string) error {
	inputs, err := Inputs(dir)
	if err != nil {
		return err
	}
	same := false
	if fi, err := os.Stat(ref); ref != "" && err == nil && fi.IsDir() {
		refInputs, err := Inputs(ref)
		if err != nil {
			return err
		}
		same = refInputs == inputs
	}
	if !same {
		kept := filepath.Join(c.Dir, c.Key, inputs)
		if _, err := os.Stat(kept); errors.Is(err, fs.ErrNotExist) {
			return c.generate(dir, kept)
		} else if err != nil {
			return err
		}
		now := time.Now()
		if err := os.Chtimes(kept, now, now); err != nil {
			return err
		}
		ref = kept
	}
	return copyOutputs(ref, dir)
}

// generate runs the generators on dir and keeps their outputs as kept.
func (c Cache) generate(dir, kept string) error {
	if err := c.Generate(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(kept), filepath.Base(kept)+".")
	if err != nil {
		return err
	}
	if err := copyOutputs(dir, tmp); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	// Steps running at once may write the same inputs' outputs: the first one stays
	// (a folder is not renamed onto another that holds files).
	if err := os.Rename(tmp, kept); err != nil {
		_ = os.RemoveAll(tmp)
	}
	c.prune()
	return nil
}

// prune removes the sets of outputs no checkout used for MaxAge.
func (c Cache) prune() {
	if c.MaxAge == 0 {
		return
	}
	sets, _ := filepath.Glob(filepath.Join(c.Dir, "*", "*"))
	for _, set := range sets {
		if fi, err := os.Stat(set); err == nil && fi.IsDir() && time.Since(fi.ModTime()) > c.MaxAge {
			_ = os.RemoveAll(set)
		}
	}
}

// copyOutputs replaces controller-gen's outputs in the module to with those of from,
// and leaves no empty folder where an output went, as scripts/generate.sh leaves it.
func copyOutputs(from, to string) error {
	old, err := Outputs(to)
	if err != nil {
		return err
	}
	for _, rel := range old {
		if err := os.Remove(filepath.Join(to, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	outputs, err := Outputs(from)
	if err != nil {
		return err
	}
	for _, rel := range outputs {
		if err := copyFile(filepath.Join(from, filepath.FromSlash(rel)), filepath.Join(to, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	return removeEmptyFolders(to, "config", "api")
}

func copyFile(from, to string) error {
	src, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	fi, err := os.Stat(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, src, fi.Mode().Perm())
}

// removeEmptyFolders removes every empty folder under dir's subfolders, deepest first.
func removeEmptyFolders(dir string, subfolders ...string) error {
	var folders []string
	for _, sub := range subfolders {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err == nil && d.IsDir() {
				folders = append(folders, path)
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	// Deepest first: a folder that held only empty folders is empty once they go.
	sort.Slice(folders, func(i, j int) bool {
		return strings.Count(folders[i], string(filepath.Separator)) > strings.Count(folders[j], string(filepath.Separator))
	})
	for _, f := range folders {
		if entries, err := os.ReadDir(f); err == nil && len(entries) == 0 {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	return nil
}
