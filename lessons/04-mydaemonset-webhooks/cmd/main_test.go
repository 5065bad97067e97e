package main

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(appsv1.AddToScheme(scheme))

	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:            scheme,
		CRDDirectoryPaths: []string{filepath.Join("..", "config", "crd", "bases")},
		WebhookPaths:      []string{filepath.Join("..", "config", "webhook")},
		Cache:             controller.CacheOptions(),
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
// exist, so the manager must serve them, and say it is ready only once it does.
func TestTheManagerServesItsWebhooksOnceReady(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	check, ok := readyChecks["webhook"]
	g.Expect(ok).To(BeTrue(), "setup should add a ready check named \"webhook\"; it added %q",
		slices.Sorted(maps.Keys(readyChecks)))
	g.Eventually(func() error { return check(nil) }).Should(Succeed(),
		"the ready check \"webhook\" should pass once the webhook server answers")

	ns := env.Namespace(t)
	mds := &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "demo"},
		Spec:       appsv1.MyDaemonSetSpec{Image: "registry.k8s.io/pause:3.10"},
	}
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed(),
		"the API server calls the manager's webhooks: setup should register them")
	var stored appsv1.MyDaemonSet
	g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(mds), &stored)).To(Succeed())
	g.Expect(stored.Spec.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent),
		"the defaulting webhook should have set spec.imagePullPolicy")

	bad := &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad"},
		Spec:       appsv1.MyDaemonSetSpec{Image: "registry.k8s.io/pause 3.10"},
	}
	g.Expect(env.Client.Create(ctx, bad)).To(MatchError(ContainSubstring(`admission webhook "vmydaemonset-v1.kb.io" denied the request`)),
		"the validating webhook should refuse an image that is no reference")
}
