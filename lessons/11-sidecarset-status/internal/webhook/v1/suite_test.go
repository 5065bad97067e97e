package v1

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/11-sidecarset-status/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	flag.Parse()
	// `go test -fuzz` starts this binary again for every fuzzing worker. The fuzz targets
	// call the webhooks' functions directly; an API server per worker would only take
	// the CPU the fuzzer needs. Tests that need one skip (see newNamespace).
	if fuzzing() {
		os.Exit(m.Run())
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sidecarsv1.AddToScheme(scheme))

	root := filepath.Join("..", "..", "..")
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:            scheme,
		CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")},
		// envtest installs the generated configurations, pointed at the manager's
		// webhook server over TLS: the API server calls both webhooks, the pod webhook
		// on every pod a test creates, as it would in a cluster.
		WebhookPaths: []string{filepath.Join(root, "config", "webhook")},
		// The manager runs the webhooks and no controller: these tests are about what
		// the API server admits and stores.
		Setup: func(mgr ctrl.Manager) error {
			if err := SetupSidecarSetWebhookWithManager(mgr); err != nil {
				return err
			}
			return SetupPodWebhookWithManager(mgr)
		},
	}, &env))
}

// fuzzing reports whether the binary runs a fuzz target (-test.fuzz), as the coordinator
// or as one of its workers.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
