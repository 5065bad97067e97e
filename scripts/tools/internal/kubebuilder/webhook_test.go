package kubebuilder

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The command docs/lesson-04.md names, as it stands there in backquotes.
var createWebhook = regexp.MustCompile("`(kubebuilder create\\s+webhook\\s[^`]*)`")

// The learner who finished lesson 03 can scaffold lesson 04's webhooks with the command
// its page names, with the kubebuilder make binaries builds: the PROJECT of lesson 03
// tells kubebuilder the layout and the kind, and the stage has no webhook yet.
// --make=false because the module has no Makefile; kubebuilder's go mod tidy goes
// through the Go module proxy for the test libraries its scaffold imports.
func TestLesson04sCreateWebhookWorksInLesson03(t *testing.T) {
	kubebuilder := filepath.Join(pinnedBin(t), "kubebuilder")
	if _, err := os.Stat(kubebuilder); err != nil {
		t.Skipf("%s is not built (scripts/build-binaries.sh, make binaries builds it): this test runs `kubebuilder create webhook` in a copy of lessons/03-mydaemonset", kubebuilder)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "lesson-04.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := createWebhook.FindSubmatch(page)
	if m == nil {
		t.Fatal("docs/lesson-04.md names no `kubebuilder create webhook ...` command")
	}
	args := append(strings.Fields(string(m[1]))[1:], "--make=false")

	// The copy keeps its place under lessons/, beside shared/, which its go.mod's
	// replace directive names as ../../shared.
	top := t.TempDir()
	lesson := filepath.Join(top, "lessons", "03-mydaemonset")
	if err := os.CopyFS(lesson, os.DirFS(filepath.Join(root, "lessons", "03-mydaemonset"))); err != nil {
		t.Fatal(err)
	}
	shared, err := filepath.Abs(filepath.Join(root, "shared"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(top, "shared")); err != nil {
		t.Fatal(err)
	}

	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = lesson
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %s in a copy of lessons/03-mydaemonset: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
		}
	}
	run(kubebuilder, args...)

	webhook, err := os.ReadFile(filepath.Join(lesson, "internal", "webhook", "apps", "v1", "mydaemonset_webhook.go"))
	if err != nil {
		t.Fatalf("kubebuilder wrote no webhook where the multi-group layout keeps it: %v", err)
	}
	for _, path := range []string{"/mutate-apps-workshop-dev-v1-mydaemonset", "/validate-apps-workshop-dev-v1-mydaemonset"} {
		if !strings.Contains(string(webhook), "+kubebuilder:webhook:path="+path+",") {
			t.Errorf("internal/webhook/apps/v1/mydaemonset_webhook.go has no webhook marker for %s:\n%s", path, webhook)
		}
	}
	p, err := readProject(filepath.Join(lesson, "PROJECT"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Resources) != 1 || p.Resources[0].Webhooks == nil || !p.Resources[0].Webhooks.Defaulting || !p.Resources[0].Webhooks.Validation {
		t.Errorf("kubebuilder's PROJECT does not record MyDaemonSet's two webhooks: %+v", p.Resources)
	}
	// What kubebuilder wrote builds with the stage's pinned libraries.
	run("go", "build", "./...")
}

// pinnedBin returns the folder of built binaries the pins name (scripts/lib/common.sh's
// BIN).
func pinnedBin(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", `source scripts/lib/common.sh && printf %s "$BIN"`)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/lib/common.sh: %v", err)
	}
	return string(out)
}
