package v1

import (
	"os"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/sidecars"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	scheme := testenv.Scheme(sidecarsv1.AddToScheme)
	if testenv.Fuzzing() {
		os.Exit(fuzzWithAPIServer(m, scheme))
	}
	// The manager runs both webhooks and no controller: these tests are about what the API
	// server admits and stores, and the pod webhook is called on every pod a test creates.
	os.Exit(testenv.RunWebhooks(m, scheme, func(mgr ctrl.Manager) error {
		if err := testenv.CreateNamespace(mgr, sidecars.DefaultManagerNamespace); err != nil {
			return err
		}
		if err := SetupSidecarSetWebhookWithManager(mgr, sidecars.DefaultManagerNamespace); err != nil {
			return err
		}
		return SetupPodWebhookWithManager(mgr, sidecars.DefaultManagerNamespace)
	}, &env))
}
