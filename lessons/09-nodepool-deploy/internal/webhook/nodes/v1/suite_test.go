package v1

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	flag.Parse()
	// `go test -fuzz` starts this binary again for every fuzzing worker. The fuzz target
	// calls the webhooks' functions directly; an API server per worker would only take
	// the CPU the fuzzer needs. Tests that need one skip (see webhookServer).
	if fuzzing() {
		os.Exit(m.Run())
	}

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(nodesv1.AddToScheme(scheme))

	root := filepath.Join("..", "..", "..", "..")
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:            scheme,
		CRDDirectoryPaths: []string{filepath.Join(root, "config", "crd", "bases")},
		// envtest installs the generated configurations, every kind's, pointed at the
		// manager's webhook server over TLS with a certificate of its own making.
		WebhookPaths: []string{filepath.Join(root, "config", "webhook")},
		// The manager runs the NodePool webhooks and no controller: these tests are about
		// what the API server admits and stores. No NodePool gets a finalizer or a
		// RuntimeClass here.
		Setup: SetupNodePoolWebhookWithManager,
	}, &env))
}

// fuzzing reports whether the binary runs a fuzz target (-test.fuzz), as the coordinator
// or as one of its workers.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
