package controller

import (
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme: testenv.Scheme(nodesv1.AddToScheme),
		// cmd/main.go keeps the default cache; the tests only note which kinds it informs
		// about (TestTheManagerCachesNoPods, nodepool_watch_test.go).
		Cache: cache.Options{NewInformer: informers.record, ByObject: CacheByObject()},
		Setup: func(mgr ctrl.Manager) error {
			return (&NodePoolReconciler{
				Client:    mgr.GetClient(),
				Scheme:    mgr.GetScheme(),
				APIReader: mgr.GetAPIReader(),
				Recorder:  mgr.GetEventRecorder("nodepool-controller"),
			}).SetupWithManager(mgr)
		},
	}, &env))
}
