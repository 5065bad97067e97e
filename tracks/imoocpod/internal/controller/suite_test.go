package controller

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(appsv1.AddToScheme(scheme))

	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:            scheme,
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")},
		Setup: func(mgr ctrl.Manager) error {
			return (&ImoocPodReconciler{
				Client: mgr.GetClient(),
				Scheme: mgr.GetScheme(),
				//stage:2
				FilterEvents:            true,
				MaxConcurrentReconciles: 2,
				//stage:end
			}).SetupWithManager(mgr)
		},
	}, &env))
}
