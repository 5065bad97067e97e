package controller

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/05-nodepool/api/apps/v1"
	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/05-nodepool/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(appsv1.AddToScheme(scheme))
	utilruntime.Must(nodesv1.AddToScheme(scheme))

	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:            scheme,
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")},
		Cache:             CacheOptions(),
		// One manager runs every controller, as cmd/main.go does.
		Setup: func(mgr ctrl.Manager) error {
			err := (&ImoocPodReconciler{
				Client:       mgr.GetClient(),
				Scheme:       mgr.GetScheme(),
				FilterEvents: true,
			}).SetupWithManager(mgr)
			if err != nil {
				return err
			}
			err = (&MyDaemonSetReconciler{
				Client:    mgr.GetClient(),
				Scheme:    mgr.GetScheme(),
				APIReader: mgr.GetAPIReader(),
			}).SetupWithManager(mgr)
			if err != nil {
				return err
			}
			return (&NodePoolReconciler{
				Client:    mgr.GetClient(),
				Scheme:    mgr.GetScheme(),
				APIReader: mgr.GetAPIReader(),
			}).SetupWithManager(mgr)
		},
	}, &env))
}
