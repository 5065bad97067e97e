package v1

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	nodesv1 "github.com/kube-workshop/operator-workshop/tracks/nodepool/api/nodes/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(nodesv1.AddToScheme(scheme))

	// The manager runs the NodePool webhooks and no controller: these tests are about what
	// the API server admits and stores. No NodePool gets a finalizer or a RuntimeClass here.
	root := filepath.Join("..", "..", "..", "..")
	os.Exit(testenv.RunWebhooks(m, root, scheme, SetupNodePoolWebhookWithManager, &env))
}
