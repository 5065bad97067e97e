package testenv

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

func TestBinaryAssetsDirectoryNamesTheFixWhenBinariesAreMissing(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	t.Setenv("KUBEBUILDER_ASSETS", dir)

	_, err := BinaryAssetsDirectory()
	g.Expect(err).To(MatchError(ContainSubstring("no etcd in " + dir + "; run `make binaries`")))

	for _, name := range []string{"etcd", "kube-apiserver"} {
		g.Expect(os.WriteFile(filepath.Join(dir, name), nil, 0o755)).To(Succeed())
	}
	got, err := BinaryAssetsDirectory()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(dir))
}

func TestBinaryAssetsDirectoryFindsTheWorkshopCache(t *testing.T) {
	g := NewWithT(t)
	top := t.TempDir()
	bin := filepath.Join(top, ".cache", "bin", "current")
	nested := filepath.Join(top, "lessons", "01-x", "internal", "controller")
	g.Expect(os.MkdirAll(bin, 0o755)).To(Succeed())
	g.Expect(os.MkdirAll(nested, 0o755)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(top, "go.work"), []byte("go 1.26.0\n"), 0o644)).To(Succeed())
	for _, name := range []string{"etcd", "kube-apiserver"} {
		g.Expect(os.WriteFile(filepath.Join(bin, name), nil, 0o755)).To(Succeed())
	}
	t.Setenv("KUBEBUILDER_ASSETS", "")
	t.Chdir(nested)

	got, err := BinaryAssetsDirectory()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(bin), "a test deep inside a lesson finds the binaries at the top")
}
