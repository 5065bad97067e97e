package v1

import (
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/11-sidecarset-status/api/sidecars/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	// The manager runs both webhooks and no controller: these tests are about what the API
	// server admits and stores, and the pod webhook is called on every pod a test creates.
	os.Exit(testenv.RunWebhooks(m, testenv.Scheme(sidecarsv1.AddToScheme), func(mgr ctrl.Manager) error {
		if err := SetupSidecarSetWebhookWithManager(mgr); err != nil {
			return err
		}
		return SetupPodWebhookWithManager(mgr)
	}, &env))
}
