package v1

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/10-sidecarset/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/solutions/10-sidecarset/internal/sidecars"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sidecarsv1.AddToScheme(scheme))

	// The manager runs both webhooks and no controller: these tests are about what the API
	// server admits and stores, and the pod webhook is called on every pod a test creates.
	root := filepath.Join("..", "..", "..")
	os.Exit(testenv.RunWebhooks(m, root, scheme, func(mgr ctrl.Manager) error {
		if err := SetupSidecarSetWebhookWithManager(mgr); err != nil {
			return err
		}
		return SetupPodWebhookWithManager(mgr, sidecars.DefaultManagerNamespace)
	}, &env))
}
