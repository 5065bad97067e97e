package testenv

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RunWebhooks is Run for a package that tests a module's webhooks through the API
// server. envtest installs the module's CRDs (config/crd/bases) and its generated webhook
// configurations (config/webhook), pointed at the manager's webhook server over TLS with
// a certificate of its own making: the API server calls the webhooks as it would in a
// cluster. setup registers them with the manager.
//
// `go test -fuzz` starts the test binary again for every fuzzing worker. A fuzz target
// calls the webhooks' functions directly; an API server per worker would only take the
// CPU the fuzzer needs. While the binary fuzzes (see Fuzzing), RunWebhooks starts
// nothing and leaves *env nil, and the tests that need the API server skip (see
// WaitForWebhooks).
func RunWebhooks(m *testing.M, scheme *runtime.Scheme, setup func(ctrl.Manager) error, env **Env) int {
	if Fuzzing() {
		return m.Run()
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	return Run(m, Options{
		Scheme:       scheme,
		WebhookPaths: []string{filepath.Join(root, "config", "webhook")},
		Setup:        setup,
	}, env)
}

// Fuzzing reports whether the test binary runs a fuzz target (-test.fuzz), as the
// coordinator or as one of its workers. It parses the command line when nothing has
// yet: TestMain runs before testing.M.Run would.
func Fuzzing() bool {
	if !flag.Parsed() {
		flag.Parse()
	}
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// WaitForWebhooks waits until the manager's webhook server answers. Until then the API
// server refuses every object a webhook with failurePolicy=fail is registered for; a
// stage's cmd/main.go makes the same check the manager's ready check.
//
// It skips the test when e is nil: RunWebhooks starts no API server while fuzzing.
func (e *Env) WaitForWebhooks(t testing.TB) {
	t.Helper()
	if e == nil {
		t.Skip("no API server while fuzzing")
	}
	// The environment starts before the wait, not in its first try: its start, seconds
	// long, would use up the wait's time.
	server := e.Manager().GetWebhookServer()
	gomega.NewWithT(t).Eventually(func() error {
		return server.StartedChecker()(nil)
	}).Should(gomega.Succeed(), "the manager's webhook server should answer")
}

// WebhookNamespace waits for the manager's webhook server (WaitForWebhooks) and returns
// a fresh namespace (Namespace), for a test whose objects go through the webhooks.
func (e *Env) WebhookNamespace(t testing.TB) string {
	t.Helper()
	e.WaitForWebhooks(t)
	return e.Namespace(t)
}

// WithoutValidation runs f while the ValidatingWebhookConfiguration named configuration
// is deleted, and puts it back, also when f fails: the other tests need the webhook. It
// is how a test stores an object that the rules, once back, refuse, as one stored
// before the webhook existed. The API server picks up both changes a moment later: f
// must retry until its write goes through, and a test that needs the webhook back must
// retry until it refuses again.
func (e *Env) WithoutValidation(t testing.TB, configuration string, f func()) {
	t.Helper()
	g := gomega.NewWithT(t)
	var config admissionregistrationv1.ValidatingWebhookConfiguration
	g.Expect(e.Client().Get(e.Context(), client.ObjectKey{Name: configuration}, &config)).To(gomega.Succeed())
	restore := func() {
		again := config.DeepCopy()
		again.ObjectMeta = metav1.ObjectMeta{Name: config.Name, Labels: config.Labels, Annotations: config.Annotations}
		err := e.Client().Create(e.Context(), again)
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("putting the validating webhook configuration back: %v", err)
		}
	}
	t.Cleanup(restore)
	g.Expect(e.Client().Delete(e.Context(), &config)).To(gomega.Succeed())
	f()
	restore()
}

// CreateWithoutValidation stores obj, which the validating webhook named webhook
// refuses, as one stored before the webhook existed: it creates a copy of obj while the
// ValidatingWebhookConfiguration named configuration is deleted (WithoutValidation), then
// waits until the webhook refuses obj again (a dry-run create), so that the test goes on
// with the rules back in force.
func (e *Env) CreateWithoutValidation(t testing.TB, configuration, webhook string, obj client.Object) {
	t.Helper()
	g := gomega.NewWithT(t)
	e.WithoutValidation(t, configuration, func() {
		g.Eventually(func() error {
			return e.Client().Create(e.Context(), obj.DeepCopyObject().(client.Object))
		}).Should(gomega.Succeed(), "without the validating webhook, the CRD's schema should let the object in")
	})
	g.Eventually(func() error {
		return e.Client().Create(e.Context(), obj.DeepCopyObject().(client.Object), client.DryRunAll)
	}).Should(gomega.MatchError(gomega.ContainSubstring(webhook)), "the validating webhook should be back")
}
