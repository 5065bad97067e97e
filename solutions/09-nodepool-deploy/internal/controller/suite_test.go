package controller

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/api/nodes/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(nodesv1.AddToScheme(scheme))

	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:            scheme,
		CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")},
		// cmd/main.go keeps the default cache; the tests only note which kinds it informs
		// about (TestTheManagerCachesNoPods, nodepool_watch_test.go).
		Cache: cache.Options{NewInformer: informers.record},
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
