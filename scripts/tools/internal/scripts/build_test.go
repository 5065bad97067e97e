package scripts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyInto copies the files of this checkout (paths relative to its top) into root.
func copyInto(t *testing.T, root string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join("../../../..", p))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// built lists the binaries in the checkout root's current binaries folder.
func built(t *testing.T, root string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, ".cache/bin/current"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The first make check-N waits only for what the tests need: etcd, kube-apiserver and
// controller-gen, about 10 of the 17 minutes of a cold build. The rest is built by the
// first command that starts a cluster, into the same folder.
func TestBuildBinariesForTheTestsBuildsOnlyWhatTheyNeed(t *testing.T) {
	root := t.TempDir()
	copyInto(t, root, "scripts/build-binaries.sh", "scripts/lib/common.sh", "scripts/versions.env",
		"scripts/controlplane/go.mod", "scripts/controlplane/go.sum", "scripts/controlplane/etcd/main.go",
		"scripts/tools/go.mod", "scripts/tools/go.sum", "scripts/kubebuilder/go.mod", "scripts/kubebuilder/go.sum",
		"scripts/helm/go.mod", "scripts/helm/go.sum", "scripts/delve/go.mod", "scripts/delve/go.sum")
	// A go that "builds" a binary by writing the file go build -o names.
	fake := t.TempDir()
	writeCommand(t, fake, "go", `while [[ $# -gt 0 ]]; do [[ $1 == -o ]] && { echo built >"$2"; chmod +x "$2"; }; shift; done`)

	out, err := runWithCommandsOf(fake, "bash "+filepath.Join(root, "scripts/build-binaries.sh")+" tests")
	if err != nil {
		t.Fatalf("build-binaries.sh tests: %v\n%s", err, out)
	}
	if got, want := built(t, root), []string{"controller-gen", "etcd", "kube-apiserver"}; !slices.Equal(got, want) {
		t.Errorf("build-binaries.sh tests built %q, want %q", got, want)
	}
	if !strings.Contains(out, "about 10 minutes") {
		t.Errorf("build-binaries.sh tests does not say how long it takes:\n%s", out)
	}

	out, err = runWithCommandsOf(fake, "bash "+filepath.Join(root, "scripts/build-binaries.sh"))
	if err != nil {
		t.Fatalf("build-binaries.sh: %v\n%s", err, out)
	}
	if got := built(t, root); len(got) != 14 {
		t.Errorf("build-binaries.sh built %d binaries, want all 14: %q", len(got), got)
	}
	if strings.Contains(out, "Building etcd") {
		t.Errorf("build-binaries.sh built etcd again:\n%s", out)
	}
}
