package main

import (
	"strings"
	"testing"
)

// A stage of a file whose track imports five packages, with the code that used two of
// them left out: strings (by its name) and core/v1 (by the element before its version).
const stageWithUnusedImports = `package controller

import (
	"fmt"
	"strings"

	_ "embed"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/api/core/v1"
	yaml "sigs.k8s.io/yaml"
)

func describe(pod *corev1.Pod) string {
	out, _ := yaml.Marshal(pod)
	return fmt.Sprint(string(out))
}
`

func TestAStageLosesTheImportsOnlyItsLeftOutCodeUsed(t *testing.T) {
	out, err := dropUnusedImports("describe.go", []byte(stageWithUnusedImports))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, gone := range []string{`"strings"`, `"k8s.io/api/core/v1"` + "\n"} {
		if strings.Contains(got, "\t"+gone) {
			t.Errorf("the import %s is still there, with nothing using it:\n%s", gone, got)
		}
	}
	for _, kept := range []string{`"fmt"`, `_ "embed"`, `corev1 "k8s.io/api/core/v1"`, `yaml "sigs.k8s.io/yaml"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("the import %s is gone, but the file uses it:\n%s", kept, got)
		}
	}
}

func TestAnImportUsedByTheElementBeforeItsVersionStays(t *testing.T) {
	src := strings.Replace(stageWithUnusedImports, "return fmt.Sprint(string(out))", "return fmt.Sprint(string(out), v1.PodRunning)", 1)
	out, err := dropUnusedImports("describe.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\t\"k8s.io/api/core/v1\"\n") {
		t.Errorf("k8s.io/api/core/v1 (package v1) is gone, but the file uses v1.PodRunning:\n%s", out)
	}
}

func BenchmarkWriteLesson(b *testing.B) {
	root := "../../.."
	for b.Loop() {
		if err := writeOne(root, 3, true, 10, "", b.TempDir()); err != nil {
			b.Fatal(err)
		}
	}
}
