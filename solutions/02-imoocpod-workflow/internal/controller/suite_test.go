package controller

import (
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/02-imoocpod-workflow/api/apps/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme: testenv.Scheme(appsv1.AddToScheme),
		Setup: func(mgr ctrl.Manager) error {
			return (&ImoocPodReconciler{
				Client:                  mgr.GetClient(),
				Scheme:                  mgr.GetScheme(),
				FilterEvents:            true,
				MaxConcurrentReconciles: 2,
				APIReader:               mgr.GetAPIReader(),
			}).SetupWithManager(mgr)
		},
	}, &env))
}
