package controller

import (
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/13-imoocpod-versions/api/apps/v1"
	appsv2 "github.com/kube-workshop/operator-workshop/lessons/13-imoocpod-versions/api/apps/v2"
	webhookappsv1 "github.com/kube-workshop/operator-workshop/lessons/13-imoocpod-versions/internal/webhook/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		// v1 is still served: the lessons' tests of its schema run through the conversion
		// webhook.
		Scheme: testenv.Scheme(appsv1.AddToScheme, appsv2.AddToScheme),
		Setup: func(mgr ctrl.Manager) error {
			if err := webhookappsv1.SetupImoocPodWebhookWithManager(mgr); err != nil {
				return err
			}
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
