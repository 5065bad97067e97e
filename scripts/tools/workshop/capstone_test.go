package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/index"
)

func TestTheCapstoneSolutionsProjectIsTheSpecs(t *testing.T) {
	if err := checkCapstoneProject(filepath.Join("..", "..", "..", "solutions", "15-capstone"), 15); err != nil {
		t.Fatal(err)
	}
}

// A learner's PROJECT that departs from the spec is told so before anything runs, each
// departure named with the command that gives the spec's.
func TestACapstoneProjectThatDepartsFromTheSpecIsNamedFirst(t *testing.T) {
	for _, c := range []struct {
		name, project string
		want          []string
	}{
		{"no PROJECT", "", []string{"has no PROJECT file", "kubebuilder init"}},
		{"another group and a namespaced kind", `domain: example.com
layout:
- go.kubebuilder.io/v4
resources:
- api:
    crdVersion: v1
    namespaced: true
  group: apps
  kind: ConfigMapCopy
  version: v1
`, []string{`domain is "example.com"`, "a resource ConfigMapCopy/v1 of group apps", "no resource ConfigMapCopy/v1 of group copies"}},
		{"namespaced, no webhook, multigroup", `domain: workshop.dev
layout:
- go.kubebuilder.io/v4
multigroup: true
resources:
- api:
    crdVersion: v1
    namespaced: true
  group: copies
  kind: ConfigMapCopy
  version: v1
`, []string{"multigroup is true", "namespaced: the spec's is cluster-scoped (kubebuilder create api --namespaced=false)", "kubebuilder create webhook --defaulting --programmatic-validation"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.project != "" {
				if err := os.WriteFile(filepath.Join(dir, "PROJECT"), []byte(c.project), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := checkCapstoneProject(dir, 15)
			if err == nil {
				t.Fatal("the PROJECT passed")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the message does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// The page gives, word for word, the kubebuilder commands that workshop capstone-scaffold
// runs to prove a scaffold without logic fails every row.
func TestTheCapstonePageGivesTheScaffoldCommands(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "lesson-15.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Join(strings.Fields(strings.ReplaceAll(string(src), "\\\n", " ")), " ")
	for _, args := range scaffoldCommands {
		if cmd := "kubebuilder " + strings.Join(args, " "); !strings.Contains(page, cmd) {
			t.Errorf("docs/lesson-15.md does not say %q", cmd)
		}
	}
}

// A capstone's hint names the requirement and the page of its spec: no TODO marks a
// place for it in the learner's code.
func TestACapstoneHintNamesTheRequirementAndItsPage(t *testing.T) {
	l := index.Lesson{Number: 15, Title: "x", Folder: "lessons/15-x", Timeout: "60s", StartsEmpty: true, Todos: []index.Todo{
		{ID: 1, Title: "The schema refuses.", Hints: []string{"h1", "h2"}, Tests: []string{"TestR1"}},
	}}
	var out bytes.Buffer
	if err := hint(&out, t.TempDir(), l, 1); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "R1 The schema refuses. (docs/lesson-15.md)\n") || strings.Contains(out.String(), "TODO(") {
		t.Errorf("the hint:\n%s", out.String())
	}
}
