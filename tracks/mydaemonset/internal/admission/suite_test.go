// Package admission tests the rules the API server runs itself, without a webhook: the
// CEL rules of the MyDaemonSet CRD and the admission policies of config/policies. No
// manager runs here, and no webhook is installed: every answer these tests see comes
// from the API server alone, which is what a cluster sees with the manager down.
package admission

import (
	"os"
	"testing"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/tracks/mydaemonset/api/apps/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{Scheme: testenv.Scheme(appsv1.AddToScheme)}, &env))
}
