package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/api/sidecars/v1"
)

// The metrics tests need an API server, which authenticates and authorizes scrapers; the
// other tests of the package use none.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{Scheme: testenv.Scheme(sidecarsv1.AddToScheme)}, &env))
}

// A deployed manager serves its metrics to the whole cluster network. secureMetrics, which
// main installs unless --metrics-secure=false, serves them over HTTPS only, and only to a
// caller the API server authenticates and allows to get /metrics, as the ClusterRole of
// config/rbac/metrics_reader_role.yaml does once bound to a scraper.
func TestTheMetricsAreServedOnlyToWhoMayReadThem(t *testing.T) {
	o := ctrl.Options{Scheme: env.Client.Scheme()}
	secureMetrics(&o)
	env.ExpectMetricsOnlyForReaders(t, o, filepath.Join("..", "config", "rbac", "metrics_reader_role.yaml"))
}

// The metrics filter asks the API server about every scraper, with the manager's own
// identity: the role controller-gen writes from the RBAC markers (config/rbac/role.yaml)
// must let it, or a deployed manager answers every scrape with an error.
func TestTheManagersRoleAllowsTheMetricsFilter(t *testing.T) {
	env.ExpectRoleAllowsMetricsFilter(t, filepath.Join("..", "config", "rbac", "role.yaml"))
}

// --metrics-secure is true unless told otherwise; false serves plain HTTP, for a manager
// on this machine whose memory make bench-sidecarset reads.
func TestTheMetricsAreSecureUnlessToldOtherwise(t *testing.T) {
	g := NewWithT(t)
	var opts bootstrap.Options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	serveMetricsSecurely(fs, &opts)
	g.Expect(fs.Parse(nil)).To(Succeed())
	g.Expect(opts.Configure).NotTo(BeNil(), "by default the manager serves its metrics securely")
	var o ctrl.Options
	opts.Configure(&o)
	g.Expect(o.Metrics.SecureServing).To(BeTrue(), "by default the metrics are served over HTTPS")
	g.Expect(o.Metrics.FilterProvider).NotTo(BeNil(), "by default the metrics are served behind the authentication filter")
	g.Expect(fs.Parse([]string{"--metrics-secure=false"})).To(Succeed())
	g.Expect(opts.Configure).To(BeNil(), "--metrics-secure=false serves the metrics as controller-runtime does by default")
}
