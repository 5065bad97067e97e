package testenv

import (
	"flag"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
)

func TestFuzzingFollowsTheFuzzFlag(t *testing.T) {
	g := NewWithT(t)
	fuzz := flag.Lookup("test.fuzz")
	g.Expect(fuzz).NotTo(BeNil(), "a test binary has the flag -test.fuzz")
	g.Expect(Fuzzing()).To(BeFalse(), "go test without -fuzz")

	before := fuzz.Value.String()
	t.Cleanup(func() { _ = fuzz.Value.Set(before) })
	g.Expect(fuzz.Value.Set("^FuzzValidate$")).To(Succeed())
	g.Expect(Fuzzing()).To(BeTrue(), "go test -fuzz '^FuzzValidate$'")
}

// While fuzzing RunWebhooks leaves the package's Env nil: a test that needs the API
// server must skip rather than fail on a nil pointer.
func TestWaitForWebhooksSkipsWithoutAnAPIServer(t *testing.T) {
	var env *Env
	var inner *testing.T
	t.Run("needs the API server", func(t *testing.T) {
		inner = t
		env.WaitForWebhooks(t)
		t.Error("WaitForWebhooks returned on a nil Env")
	})
	if !inner.Skipped() {
		t.Errorf("the test that needs the API server was not skipped")
	}
}

// WaitForWebhooks is often a test's first use of the environment: the control plane's
// start, seconds long, must come before the wait, not use up its time.
func TestWaitForWebhooksStartsTheEnvironmentBeforeItWaits(t *testing.T) {
	e := unstartedEnv(t, Options{Setup: func(mgr ctrl.Manager) error {
		mgr.GetWebhookServer() // the manager runs it
		return nil
	}})
	// Shorter than the control plane takes to start, long enough for the webhook server
	// of a running manager.
	SetDefaultEventuallyTimeout(3 * time.Second)
	t.Cleanup(func() { SetDefaultEventuallyTimeout(time.Second) })
	e.WaitForWebhooks(t)
}

// unstartedEnv returns an Env of opts, not started yet: by default client-go's scheme and
// no CRDs. It stops the Env, if started, when the test ends. It skips a short test, and
// one without the binaries.
func unstartedEnv(t *testing.T, opts Options) *Env {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	if _, err := BinaryAssetsDirectory(); err != nil {
		t.Skip(err)
	}
	if opts.Scheme == nil {
		opts.Scheme = scheme.Scheme
	}
	if len(opts.CRDDirectoryPaths) == 0 {
		opts.CRDDirectoryPaths = []string{t.TempDir()}
	}
	e := &Env{opts: opts}
	t.Cleanup(func() {
		if e.stop == nil {
			return
		}
		if err := e.stop(); err != nil {
			t.Errorf("stopping: %v", err)
		}
	})
	return e
}
