package main

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/04-mydaemonset-webhooks/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/lessons/04-mydaemonset-webhooks/internal/controller"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var (
	env *testenv.Env
	// readyChecks are the ready checks setup added, by name. The manager serves them on
	// /readyz, which the test manager does not listen on.
	readyChecks = map[string]healthz.Checker{}
)

// TestMain starts an API server with the module's CRD and webhook configurations, and a
// manager set up by setup, the function main hands to bootstrap.Run.
func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:       testenv.Scheme(appsv1.AddToScheme),
		WebhookPaths: []string{filepath.Join("..", "config", "webhook")},
		Cache:        controller.CacheOptions(),
		Setup: func(mgr ctrl.Manager) error {
			return setup(&checkRecorder{Manager: mgr}, 1)
		},
	}, &env))
}

// checkRecorder is the manager, remembering the ready checks added to it.
type checkRecorder struct{ ctrl.Manager }

func (m *checkRecorder) AddReadyzCheck(name string, check healthz.Checker) error {
	readyChecks[name] = check
	return m.Manager.AddReadyzCheck(name, check)
}

// The API server calls the webhooks of a deployed manager as soon as their configurations
// exist, and refuses every MyDaemonSet while they do not answer: the manager must serve
// them, and say it is ready only once it does. Whatever the webhooks decide, a valid
// MyDaemonSet is admitted only when both answered.
func TestTheManagerServesItsWebhooksOnceReady(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	g.Expect(readyChecks).To(HaveKey("webhook"), "setup should add a ready check named \"webhook\"")
	g.Eventually(func() error { return readyChecks["webhook"](nil) }).Should(Succeed(),
		"the ready check \"webhook\" should pass once the webhook server answers")

	mds := &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace(t), Name: "demo"},
		Spec:       appsv1.MyDaemonSetSpec{Image: "registry.k8s.io/pause:3.10"},
	}
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed(),
		"the API server calls the manager's webhooks for every MyDaemonSet: setup should register them")
}
