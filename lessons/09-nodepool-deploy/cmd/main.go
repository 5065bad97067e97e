// Command manager runs the NodePool operator against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/internal/controller"
	webhooknodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/internal/webhook/nodes/v1"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

func main() {
	opts := managerOptions()
	opts.Configure = func(o *ctrl.Options) {
		readYourWrites(o)
		leaderElection(o)
		secureMetrics(o)
	}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(nodesv1.AddToScheme(scheme))

	if err := bootstrap.Run(opts, scheme, setup); err != nil {
		os.Exit(1)
	}
}

// setup registers with the manager what it runs: the NodePool controller and, from
// lesson 08 on, the NodePool webhooks. main hands it to bootstrap.Run; the tests of cmd
// run it in their manager.
func setup(mgr ctrl.Manager) error {
	err := (&controller.NodePoolReconciler{
		Client:    mgr.GetClient(),
		Scheme:    mgr.GetScheme(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder("nodepool-controller"),
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the NodePool controller: %w", err)
	}
	if err := webhooknodesv1.SetupNodePoolWebhookWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the NodePool webhooks: %w", err)
	}

	// Ready only once the webhook server answers: until then the API server refuses
	// every NodePool (failurePolicy=fail), so a Service must not send it requests
	// yet, and make lesson-N waits for it.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook server's ready check: %w", err)
	}
	return nil
}

// managerOptions returns the manager's options before the flags are parsed: the
// client limits below, and a client that reads its own writes (readYourWrites).
//
// The default cache: it holds what the controller watches and reads, which is every
// NodePool, every node and every RuntimeClass, and nothing else (controller.CacheByObject
// says what it keeps of some). No pod: a pool never reads one.
//
// Client limits sized for a pool change: a spec change patches every member of the pool
// in one pass (syncNodes), one patch each, so its requests come in one burst as big as
// the pool. At the workshop's default limits (100 a second after a burst of 200), 500
// members wait 3 s for the rate limiter alone; a burst of 600 lets them go out at once,
// at the pace the API server takes them, with room for the pass's other requests, and
// 300 a second refill it in 2 s. The API server still guards itself (API Priority and
// Fairness); --kube-api-qps and --kube-api-burst still override them.
func managerOptions() bootstrap.Options {
	return bootstrap.Options{
		Name: "nodepool", KubeAPIQPS: 300, KubeAPIBurst: 600, Configure: readYourWrites,
		Cache: cache.Options{ByObject: controller.CacheByObject()},
	}
}

// readYourWrites makes a read from the manager's cache wait until the cache has seen the
// manager's own writes before it. A pass that patches hundreds of nodes at once ends
// before the watch has brought back the last of them, and their events have queued the
// pass after it: that pass would find those nodes as they were, patch them again with
// the old resourceVersion and be refused (409 Conflict), a wasted request and a read
// each. Waiting costs the next pass a few milliseconds. (controller-runtime calls the
// option experimental: its details may change.)
func readYourWrites(o *ctrl.Options) {
	o.Client.Cache = &client.CacheOptions{EnableReadYourWritesConsistency: ptr.To(true)}
}

// leaderElection sets how the Deployment's replicas share the work (with --leader-elect):
// the one that holds the Lease reconciles, renewing it every RetryPeriod; the others try
// to take it every RetryPeriod. A leader that cannot renew for RenewDeadline gives up and
// exits; a leader that dies leaves the Lease to expire LeaseDuration after its last
// renewal, as another replica sees it: a crash stops reconciling for at most about
// LeaseDuration plus two RetryPeriods (and their jitter).
// A leader that stops cleanly (SIGTERM, a rolling update) releases the Lease at once.
func leaderElection(o *ctrl.Options) {
	// TODO(2): Time the leader election.
	// A crashed leader's work waits about ten seconds at most: a lease of 10s,
	// renewed within 6s, tried every 2s. A replica stopped cleanly, as by a
	// rolling update, hands the Lease over at once. See "Leader election" in
	// docs/lesson-09.md.
}

// The manager's own permissions, beyond its controller's (internal/controller): the
// metrics filter (secureMetrics, below) asks the API server who a scraper is and
// whether it may read /metrics. controller-gen writes them into config/rbac/role.yaml.
// TODO(1): Let the manager's role check who scrapes its metrics.
// The manager's role lets the secure metrics endpoint ask the API server who
// a scraper is and whether it may read /metrics, and nothing more. See "RBAC
// from markers" in docs/lesson-09.md.

// secureMetrics serves /metrics over HTTPS to whoever the API server says may read it,
// as kubebuilder's scaffold does: the filter checks the caller's bearer token with a
// TokenReview, then asks a SubjectAccessReview whether that user may get the URL /metrics
// (config/rbac/metrics_reader_role.yaml grants it). Without a certificate folder
// controller-runtime serves a self-signed certificate, made at start.
func secureMetrics(o *ctrl.Options) {
	o.Metrics.SecureServing = true
	o.Metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
}
