package controller

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/11-sidecarset-status/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/11-sidecarset-status/internal/sidecars"
	webhookv1 "github.com/kube-workshop/operator-workshop/lessons/11-sidecarset-status/internal/webhook/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sidecarsv1.AddToScheme(scheme))

	root := filepath.Join("..", "..")
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:            scheme,
		CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")},
		// The pod webhook injects the pods the tests create, as in a cluster; the
		// controller counts them.
		WebhookPaths: []string{filepath.Join(root, "config", "webhook")},
		Cache:        CacheOptions(),
		Setup: func(mgr ctrl.Manager) error {
			if err := webhookv1.SetupSidecarSetWebhookWithManager(mgr); err != nil {
				return err
			}
			if err := webhookv1.SetupPodWebhookWithManager(mgr, sidecars.DefaultManagerNamespace); err != nil {
				return err
			}
			return (&SidecarSetReconciler{
				Client:             mgr.GetClient(),
				Scheme:             mgr.GetScheme(),
				Recorder:           mgr.GetEventRecorder("sidecarset-controller"),
				ExcludedNamespaces: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace),
			}).SetupWithManager(mgr)
		},
	}, &env))
}
