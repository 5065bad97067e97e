package controller

import (
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v1"
	appsv2 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v2"
	webhookappsv1 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/internal/webhook/apps/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		//stage:13
		// v1 is still served: the lessons' tests of its schema run through the conversion
		// webhook.
		Scheme: testenv.Scheme(appsv1.AddToScheme, appsv2.AddToScheme),
		//stage:old Scheme: testenv.Scheme(appsv1.AddToScheme),
		//stage:end
		Setup: func(mgr ctrl.Manager) error {
			//stage:13
			if err := webhookappsv1.SetupImoocPodWebhookWithManager(mgr); err != nil {
				return err
			}
			//stage:end
			return (&ImoocPodReconciler{
				Client: mgr.GetClient(),
				Scheme: mgr.GetScheme(),
				//stage:2
				FilterEvents:            true,
				MaxConcurrentReconciles: 2,
				APIReader:               mgr.GetAPIReader(),
				//stage:end
			}).SetupWithManager(mgr)
		},
	}, &env))
}
