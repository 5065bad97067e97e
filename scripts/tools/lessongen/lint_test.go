package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A made-up repository: lesson 05's solution, its doc, and the lesson with one TODO.
var lintRepo = map[string]string{
	"docs/lesson-05.md": "# Lesson 05: pools\n\n## Concepts\n\n### The Reconcile skeleton\n\n" +
		"```sh\n# Not a heading\n```\n\nThe webhooks: `metav1validation \"k8s.io/apimachinery/pkg/apis/meta/v1/validation\"`.\n",
	"solutions/05-pool/go.mod": "module example.com/w/solutions/05-pool\n",
	"solutions/05-pool/cmd/main.go": `package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	webhookv1 "example.com/w/solutions/05-pool/internal/webhook/v1"
)

func setup(mgr ctrl.Manager) error {
	return webhookv1.SetupPoolWebhookWithManager(mgr)
}
`,
	"solutions/05-pool/internal/controller/pool_controller.go": `package controller

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PoolReconciler patches the nodes of a pool.
type PoolReconciler struct {
	client.Client
	Replicas int
}

func (r *PoolReconciler) syncNode(ctx context.Context, pool *Pool, node *corev1.Node) error {
	if !pool.DeletionTimestamp.IsZero() {
		return nil
	}
	sort.SliceStable(pool.Nodes, func(i, j int) bool { return pool.Nodes[i] < pool.Nodes[j] })
	node.ObjectMeta = metav1.ObjectMeta{GenerateName: pool.Name}
	_ = metav1validation.ValidateLabelSelector
	patch := client.MergeFrom(node.DeepCopy())
	return r.Status().Patch(ctx, node, patch)
}
`,
	"solutions/05-pool/internal/controller/pool_controller_test.go": "package controller\n\nfunc onlyInTests() {}\n",
	"solutions/05-pool/config/rbac/role.yaml":                       "#lesson:hint patchedOnlyInAHint\nrules:\n- resources: [nodes]\n  verbs: [patch]\n",
	"solutions/05-pool/config/crd/bases/w_pools.yaml":               "properties:\n  nodeCount:\n    type: integer\n",
	"lessons/index.json": `{"lessons": [{"number": 5, "folder": "lessons/05-pool", "todos": [
		{"id": 1, "hints": ["Patch in syncNode.", "In patchNode, use webhookv1."]}]}]}`,
	"lessons/05-pool/internal/controller/pool_controller.go": `package controller

func (r *PoolReconciler) syncNode() error {
	// TODO(1): Patch the node.
	// Patch it with client.MergeFrom, then
	// r.Recorder.Eventf.
	//
	// Not the TODO any more: patchNode.
	return nil
}
`,
}

// lintTestRepo writes the made-up repository and indexes its solution.
func lintTestRepo(t *testing.T) (string, *solutionIndex) {
	t.Helper()
	root := t.TempDir()
	for name, content := range lintRepo {
		file := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx, err := indexSolution(root, filepath.Join(root, "solutions", "05-pool"))
	if err != nil {
		t.Fatal(err)
	}
	return root, idx
}

func TestLintTextReportsWhatTheSolutionDoesNotHave(t *testing.T) {
	_, idx := lintTestRepo(t)
	for _, tc := range []struct{ name, text, want string }{
		{"a function", "In patchNode, compute what changed.", `"patchNode": not in the solution`},
		{"a method", "Call r.patchNode(ctx, node) for each node.", "r.patchNode: not in the solution's code"},
		{"a method of a type", "PoolReconciler.patchNode patches one node.", "PoolReconciler.patchNode: not in the solution's code"},
		{"a method in a chain", "r.Status().Update(ctx, node) writes it.", "Status.Update: not in the solution's code"},
		{"a package member", "slices.SortFunc sorts them.", "slices.SortFunc: not in the solution's code, which has no slices"},
		{"a package member the code does not call", "Sort with sort.Slice.", "sort.Slice: not in the solution's code"},
		{"an import alias", "Call webhookv2.SetupPoolWebhookWithManager(mgr).", "webhookv2.SetupPoolWebhookWithManager: not in the solution's code, which has webhookv1.SetupPoolWebhookWithManager"},
		{"an alias alone", "webhookv2 has one setup function.", `"webhookv2": not in the solution`},
		{"a file", "controller-gen writes config/rbac/roles.yaml.", "config/rbac/roles.yaml: no such file in the solution or the repository"},
		{"a file by its name", "Edit manager_patch.yaml.", "manager_patch.yaml: no such file in the solution"},
		{"a backquoted file", "Edit `config/manager/manager.yaml`.", "config/manager/manager.yaml: no such file in the solution or the repository"},
		{"a doc section", `See "The skeleton" in docs/lesson-05.md.`, `"The skeleton": no such section in docs/lesson-05.md`},
		{"a section in a code block", `See "Not a heading" in docs/lesson-05.md.`, `"Not a heading": no such section in docs/lesson-05.md`},
		{"a section of the lesson's doc", `(see "Reconciling")`, `"Reconciling": no such section in docs/lesson-05.md`},
		{"a doc", `See "Concepts" in docs/lesson-06.md.`, `docs/lesson-06.md: no such doc (for the section "Concepts")`},
		{"a field path", "Count them into status.nodeCounts.", `"status.nodeCounts": no field nodeCounts in the solution's code or YAML`},
		{"a backquoted word", "Call `reconcile` once.", `"reconcile": not in the solution`},
		{"a name only the tests have", "Call onlyInTests.", `"onlyInTests": not in the solution`},
		{"a word only a hint in the YAML has", "patchedOnlyInAHint", `"patchedOnlyInAHint": not in the solution`},
		{"an import path", "ptr.To (k8s.io/utils/ptr) makes one.", "k8s.io/utils/ptr: the solution does not import it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lintText(tc.text, idx); !slices.Contains(got, tc.want) {
				t.Errorf("lintText(%q) = %q, want it to hold %q", tc.text, got, tc.want)
			}
		})
	}
}

func TestLintTextAcceptsWhatTheSolutionHas(t *testing.T) {
	_, idx := lintTestRepo(t)
	for _, text := range []string{
		// Identifiers, as the code has them.
		"In syncNode, patch with client.MergeFrom(node.DeepCopy()) and r.Status().Patch(ctx, node, patch).",
		"!pool.DeletionTimestamp.IsZero() tells a pool being deleted; PoolReconciler.syncNode skips it.",
		"webhookv1.SetupPoolWebhookWithManager(mgr), and metav1validation.ValidateLabelSelector.",
		"sort.SliceStable keeps the order; ObjectMeta.GenerateName lets the API server finish the name.",
		"Its parts: .Patch(...) and .IsZero().",
		// Types named to describe a value the code never spells out.
		"The check takes a healthz.Checker; the group is a NodePool's schema.GroupKind.",
		"The fields are pointers to time.Duration.",
		// Field paths, as JSON names of the Go fields and of the CRD.
		"Scale to spec.replicas and count into status.nodeCount; metadata.name is the pool's; the nodes' deletionTimestamp.",
		// Files and sections.
		`controller-gen writes config/rbac/role.yaml and config/crd from the markers of cmd/main.go.`,
		`See "The Reconcile skeleton" in docs/lesson-05.md; see "The Reconcile skeleton" and "Concepts" in docs/lesson-05.md.`,
		`The doc explains it (see "Concepts").`,
		// What is no identifier of the solution.
		"A NodePool is like a ReplicaSet; RBAC grants nodes/status and imoocpods/status.",
		"+kubebuilder:validation:Minimum and +kubebuilder:rbac:groups=node.k8s.io; make check-5 runs controller-gen.",
		"The label node-pool.workshop.dev/x, the group events.k8s.io, kubernetes.io/metadata.name and apps.workshop.dev.",
		"See https://kubernetes.io/docs/concepts/ and `kubectl get rs`; patch=`{...}` ends the marker.",
		"Version v1, v1beta1 and v0.37.2; 10 hex digits; 65532:65532; --metrics-bind-address=:8443.",
		"gcr.io/distroless/static:nonroot, /workspace/shared/, /metrics, crypto/sha256 and ./ are no names.",
		`Return "<mds>-<node>", log "Patched node" and patch with client.MergeFrom(node, "/").`,
		"Setup...WithManager, one per webhook; TODO(3) says so.",
	} {
		if got := lintText(text, idx); len(got) > 0 {
			t.Errorf("lintText(%q) = %q, want no problem", text, got)
		}
	}
}

func TestLintImportsWantsTheImportPathOfAnAliasTheLessonLacks(t *testing.T) {
	root, solution := lintTestRepo(t)
	lesson, err := indexSolution(root, filepath.Join(root, "lessons", "05-pool"))
	if err != nil {
		t.Fatal(err)
	}
	want := "webhookv1: an import alias (of example.com/w/solutions/05-pool/internal/webhook/v1) that the lesson's code does not have: say what to import"
	if got := lintImports("Call webhookv1.SetupPoolWebhookWithManager.", solution, lesson); !slices.Equal(got, []string{want}) {
		t.Errorf("an alias without its path: got %q, want %q", got, want)
	}
	for _, text := range []string{
		"Import internal/webhook/v1 as webhookv1 and call its SetupPoolWebhookWithManager.",
		"metav1validation.ValidateLabelSelector, whose import path the doc gives.",
		"client.MergeFrom: a package the solution imports under its own name.",
	} {
		if got := lintImports(text, solution, lesson); len(got) > 0 {
			t.Errorf("lintImports(%q) = %q, want no problem", text, got)
		}
	}
}

func TestLintRepositoryReadsTheTODOsAndTheHints(t *testing.T) {
	root, _ := lintTestRepo(t)
	problems, err := lintRepository(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, strings.SplitN(p.String(), "\n", 2)[0])
	}
	want := []string{
		"lesson 05, task 1, TODO at lessons/05-pool/internal/controller/pool_controller.go:4: r.Recorder: not in the solution's code",
		`lesson 05, task 1, hint 2: "patchNode": not in the solution`,
		"lesson 05, task 1, hint 2: webhookv1: an import alias (of example.com/w/solutions/05-pool/internal/webhook/v1) that the lesson's code does not have: say what to import",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The lint on the real texts: every problem it reports is a text to fix, or a rule of
// the lint to refine (lint.go).
func TestTheLessonsTextsNameWhatTheirSolutionsHave(t *testing.T) {
	problems, err := lintRepository("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}
