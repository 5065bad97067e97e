package controller

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/sidecars"
	webhookv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/webhook/v1"
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
			if err := createManagerNamespace(mgr); err != nil {
				return err
			}
			if err := webhookv1.SetupSidecarSetWebhookWithManager(mgr, sidecars.DefaultManagerNamespace); err != nil {
				return err
			}
			if err := webhookv1.SetupPodWebhookWithManager(mgr, sidecars.DefaultManagerNamespace); err != nil {
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

// createManagerNamespace creates the namespace a deployed manager runs in: the
// SidecarSet webhook creates its dry-run pods there.
func createManagerNamespace(mgr ctrl.Manager) error {
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sidecars.DefaultManagerNamespace}}
	return client.IgnoreAlreadyExists(c.Create(context.Background(), ns))
}
