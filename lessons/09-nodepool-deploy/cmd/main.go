// Command manager runs the NodePool operator against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/internal/controller"
	webhooknodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/internal/webhook/nodes/v1"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

// The manager's own permissions, beyond its controller's (internal/controller): the
// metrics endpoint's filter (secureMetrics) asks the API server who a scraper is and
// whether it may read /metrics. controller-gen writes them into config/rbac/role.yaml.
// TODO(1): Let the manager's role check who scrapes its metrics.
// Grant what the secure metrics endpoint asks the API server: create on
// tokenreviews (group authentication.k8s.io) and create on
// subjectaccessreviews (group authorization.k8s.io), one +kubebuilder:rbac
// marker each. See "RBAC from markers" in docs/lesson-09.md.

func main() {
	// The default cache: it holds what the controller watches and reads, which is every
	// NodePool, every node and every RuntimeClass, and nothing else. No pod: a pool
	// never reads one.
	opts := bootstrap.Options{Name: "nodepool"}
	opts.Configure = func(o *ctrl.Options) {
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

// leaderElection sets how the Deployment's replicas share the work (with --leader-elect):
// the one that holds the Lease reconciles, renewing it every RetryPeriod; the others try
// to take it every RetryPeriod. A leader that cannot renew for RenewDeadline gives up and
// exits; a leader that dies leaves the Lease to expire LeaseDuration after its last
// renewal, as another replica sees it: a crash stops reconciling for at most about
// LeaseDuration plus two RetryPeriods (and their jitter).
// A leader that stops cleanly (SIGTERM, a rolling update) releases the Lease at once.
func leaderElection(o *ctrl.Options) {
	// TODO(2): Time the leader election.
	// Set the lease's timing: LeaseDuration 10s, RenewDeadline 6s, RetryPeriod
	// 2s (ptr.To from k8s.io/utils/ptr), and LeaderElectionReleaseOnCancel,
	// so that a replica stopped by a rolling update hands the Lease over at once.
	// See "Leader election" in docs/lesson-09.md.
}

// secureMetrics serves /metrics over HTTPS to whoever the API server says may read it,
// as kubebuilder's scaffold does: the filter checks the caller's bearer token with a
// TokenReview, then asks a SubjectAccessReview whether that user may get the URL /metrics
// (config/rbac/metrics_reader_role.yaml grants it). Without a certificate folder
// controller-runtime serves a self-signed certificate, made at start.
func secureMetrics(o *ctrl.Options) {
	o.Metrics.SecureServing = true
	o.Metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
}
