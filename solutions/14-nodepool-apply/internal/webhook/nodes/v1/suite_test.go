package v1

import (
	"os"
	"testing"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	// The manager runs the NodePool webhooks and no controller: these tests are about what
	// the API server admits and stores. No NodePool gets a finalizer or a RuntimeClass here.
	os.Exit(testenv.RunWebhooks(m, testenv.Scheme(nodesv1.AddToScheme), SetupNodePoolWebhookWithManager, &env))
}
