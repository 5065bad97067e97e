package v1

import (
	"os"
	"testing"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v1"
	appsv2 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v2"
)

var env *testenv.Env

// The API server of these tests calls the conversion webhook of the manager: envtest
// points the CRD's spec.conversion at the manager's webhook server, as the types in the
// scheme are convertible, and installs v1's validating webhook (config/webhook). No
// controller runs: the tests read and write ImoocPods only.
func TestMain(m *testing.M) {
	os.Exit(testenv.RunWebhooks(m, testenv.Scheme(appsv1.AddToScheme, appsv2.AddToScheme),
		SetupImoocPodWebhookWithManager, &env))
}
