package v1

import (
	"context"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/sidecars"
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
		if err := createManagerNamespace(mgr); err != nil {
			return err
		}
		if err := SetupSidecarSetWebhookWithManager(mgr, sidecars.DefaultManagerNamespace); err != nil {
			return err
		}
		return SetupPodWebhookWithManager(mgr, sidecars.DefaultManagerNamespace)
	}, &env))
}

// createManagerNamespace creates the namespace a deployed manager runs in: the
// SidecarSet webhook creates its dry-run pods there.
func createManagerNamespace(mgr ctrl.Manager) error {
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sidecars.DefaultManagerNamespace}}
	return client.IgnoreAlreadyExists(c.Create(context.Background(), ns))
}
