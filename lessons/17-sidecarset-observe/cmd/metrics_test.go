package main

import (
	"os"
	"path/filepath"
	"testing"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/shared/securemetrics"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The metrics tests need an API server, which authenticates and authorizes scrapers; the
// other tests of the package use none.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{Scheme: testenv.Scheme(sidecarsv1.AddToScheme)}, &env))
}

// A deployed manager serves its metrics to the whole cluster network.
// securemetrics.Serve, which main installs unless --metrics-secure=false, serves them
// over HTTPS only, and only to a caller the API server authenticates and allows to get
// /metrics, as the ClusterRole of config/rbac/metrics_reader_role.yaml does once bound to
// a scraper.
func TestTheMetricsAreServedOnlyToWhoMayReadThem(t *testing.T) {
	env.ExpectMetricsOnlyForReaders(t, securemetrics.Serve, filepath.Join("..", "config", "rbac", "metrics_reader_role.yaml"))
}

// The metrics filter asks the API server about every scraper, with the manager's own
// identity: the role controller-gen writes from the RBAC markers (config/rbac/role.yaml)
// must let it, or a deployed manager answers every scrape with an error.
func TestTheManagersRoleAllowsTheMetricsFilter(t *testing.T) {
	env.ExpectRoleAllowsMetricsFilter(t, filepath.Join("..", "config", "rbac", "role.yaml"))
}
