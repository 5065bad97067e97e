package stage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Outputs returns, sorted and relative to the module dir (with slashes), the files
// controller-gen wrote into it (scripts/generate.sh): DeepCopy methods, CRDs, the
// manager's RBAC role, the webhook configuration and apply configurations. This is the
// one list of them: never edited by hand, and left out of what a learner compares.
func Outputs(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); IsOutput(rel) {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// IsOutput says whether the file rel (relative to its module, with slashes) is one
// controller-gen writes.
func IsOutput(rel string) bool {
	switch {
	case filepath.Base(rel) == "zz_generated.deepcopy.go",
		strings.HasPrefix(rel, "config/crd/bases/"),
		rel == "config/rbac/role.yaml",
		rel == "config/webhook/manifests.yaml":
		return true
	case strings.HasPrefix(rel, "api/"):
		// api/<version>/applyconfiguration/..., at any depth below api/.
		return strings.Index(rel[len("api/"):], "/applyconfiguration/") > 0
	}
	return false
}

// Inputs returns a digest of what controller-gen reads in the module dir: its API types
// and every +kubebuilder marker; and, when it writes apply configurations, which name
// their module's packages, the module's path.
func Inputs(dir string) (string, error) {
	h := sha256.New()
	var types, markers []string
	applyConfigurations := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		inAPI := strings.HasPrefix(rel, "api/")
		if inAPI && !strings.HasPrefix(d.Name(), "zz_generated") {
			types = append(types, rel)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, "+kubebuilder:") || strings.Contains(line, "+groupName") {
				markers = append(markers, line)
			}
			if inAPI && strings.Contains(line, "+kubebuilder:ac:generate=true") {
				applyConfigurations = true
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(types)
	for _, rel := range types {
		src, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return "", err
		}
		h.Write(src)
	}
	sort.Strings(markers)
	for _, line := range markers {
		h.Write([]byte(line + "\n"))
	}
	if applyConfigurations {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			return "", err
		}
		h.Write(modulePath(mod))
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// modulePath is the path the module directive of go.mod names.
func modulePath(mod []byte) []byte {
	for _, line := range bytes.Split(mod, []byte("\n")) {
		if f := bytes.Fields(line); len(f) >= 2 && string(f[0]) == "module" {
			return f[1]
		}
	}
	return nil
}
