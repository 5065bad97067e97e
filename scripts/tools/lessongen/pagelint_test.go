package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pages of the repository, copied, with one line added to lesson 05's.
func pagesWith(t *testing.T, root, line string) string {
	t.Helper()
	docs := t.TempDir()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "lesson-*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no lesson pages under %s: %v", root, err)
	}
	for _, page := range pages {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(page) == "lesson-05.md" {
			src = append(src, []byte("\n"+line+"\n")...)
		}
		if err := os.WriteFile(filepath.Join(docs, filepath.Base(page)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

func TestAPageNamesOnlyWhatTheCodeOrItsLibrariesHave(t *testing.T) {
	root := "../../.."
	lines := []string{
		// Drifted: no code of the workshop has them.
		"The pass calls `syncEveryNodeTwice` for each member.",
		"`r.patchNodeLabelsTwice` writes them.",
		"Read `nodepool_members_twice.go`.",
		"`k8s.io/client-go/tools/noSuchPackage` elects.",
		// Fine: the solution's, a library's, a linked one, a library's package.
		"`client.MergeFromWithOptions` and `r.APIReader` do it; `nodepool_controller.go`.",
		"`mgr.GetEventRecorderFor` is the old recorder.",
		"See [`slowStartBatchOfOurs`](https://example.com/x.go).",
		"`k8s.io/client-go/tools/leaderelection` elects.",
	}
	problems, err := pageProblems(root, pagesWith(t, root, strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range []string{"`k8s.io/client-go/tools/noSuchPackage`", "`nodepool_members_twice.go`", "`r.patchNodeLabelsTwice`", "`syncEveryNodeTwice`"} {
		want = append(want, "docs/lesson-05.md: "+name)
	}
	if len(problems) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d, naming %s", strings.Join(problems, "\n"), len(want), strings.Join(want, ", "))
	}
	for i := range want {
		if !strings.HasPrefix(problems[i], want[i]+":") {
			t.Errorf("problem %d: %s\nwant it to name %s", i, problems[i], want[i])
		}
	}
}
