package controller

import (
	"os"
	"path/filepath"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/sidecars"
	webhooksidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/webhook/sidecars/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	root := filepath.Join("..", "..")
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme: testenv.Scheme(sidecarsv1.AddToScheme),
		// The pod webhook injects the pods the tests create, as in a cluster; the
		// controller counts them.
		WebhookPaths: []string{filepath.Join(root, "config", "webhook")},
		Cache:        CacheOptions(),
		Setup: func(mgr ctrl.Manager) error {
			if err := testenv.CreateNamespace(mgr, sidecars.DefaultManagerNamespace); err != nil {
				return err
			}
			if err := webhooksidecarsv1.SetupSidecarSetWebhookWithManager(mgr, sidecars.DefaultManagerNamespace); err != nil {
				return err
			}
			if err := webhooksidecarsv1.SetupPodWebhookWithManager(mgr, sidecars.DefaultManagerNamespace); err != nil {
				return err
			}
			return (&SidecarSetReconciler{
				Client:             mgr.GetClient(),
				APIReader:          mgr.GetAPIReader(),
				Scheme:             mgr.GetScheme(),
				Recorder:           mgr.GetEventRecorder("sidecarset-controller"),
				ExcludedNamespaces: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace),
			}).SetupWithManager(mgr)
		},
	}, &env))
}
