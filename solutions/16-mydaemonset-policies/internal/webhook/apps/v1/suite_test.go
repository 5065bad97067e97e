package v1

import (
	"os"
	"testing"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	// The manager runs the webhooks and no controller: these tests are about what the API
	// server admits and stores.
	os.Exit(testenv.RunWebhooks(m, testenv.Scheme(appsv1.AddToScheme), SetupMyDaemonSetWebhookWithManager, &env))
}
