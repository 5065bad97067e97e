// Command manager runs the NodePool operator against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"
	//stage:9
	"time"
	//stage:end

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	//stage:9
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	//stage:end

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/internal/controller"
	webhooknodesv1 "github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/internal/webhook/nodes/v1"
)

//stage:9

// The manager's own permissions, beyond its controller's (internal/controller): the
// metrics endpoint's filter (secureMetrics) asks the API server who a scraper is and
// whether it may read /metrics. controller-gen writes them into config/rbac/role.yaml.
//lesson:todo(1) Let the manager's role check who scrapes its metrics.
//lesson:todo Grant what the secure metrics endpoint asks the API server: create on
//lesson:todo tokenreviews (group authentication.k8s.io) and create on
//lesson:todo subjectaccessreviews (group authorization.k8s.io), one +kubebuilder:rbac
//lesson:todo marker each. See "RBAC from markers" in docs/lesson-09.md.
//lesson:hint The secure metrics endpoint asks the API server who a scraper is (a TokenReview) and whether it may read /metrics (a SubjectAccessReview): the manager creates both, and reads neither back.
//lesson:hint Markers in cmd/main.go count as much as the controller's: controller-gen reads every package of the module into config/rbac/role.yaml. One marker per group, with the verb create.
//lesson:test TestTheManagersRoleAllowsTheMetricsFilter
//mistake:no-tokenreview-rbac cannot create resource "tokenreviews"
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
//mistake:end
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
//lesson:end
//stage:end

func main() {
	opts := managerOptions()
	//stage:9
	opts.Configure = func(o *ctrl.Options) {
		readYourWrites(o)
		leaderElection(o)
		secureMetrics(o)
	}
	//stage:end
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
		//stage:7
		//lesson:todo(2) Give the controller an event recorder.
		//lesson:todo Give the reconciler the manager's recorder of events.k8s.io Events,
		//lesson:todo reporting as nodepool-controller. See "Events" in docs/lesson-07.md.
		//lesson:hint The manager makes recorders: one per controller, named after it, writing events.k8s.io Events.
		//lesson:hint mgr.GetEventRecorder takes the name the Events report as their controller; set it as the reconciler's Recorder field.
		//lesson:test TestTheManagerTellsWhatItDoesInEvents
		Recorder: mgr.GetEventRecorder("nodepool-controller"),
		//lesson:end
		//stage:end
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the NodePool controller: %w", err)
	}
	//stage:8
	//lesson:todo(1) Register the webhooks with the manager.
	//lesson:todo Register the NodePool webhooks: import internal/webhook/nodes/v1 as
	//lesson:todo webhooknodesv1 and call its SetupNodePoolWebhookWithManager. See
	//lesson:todo "Registering the webhooks" in docs/lesson-08.md.
	//lesson:hint The API server calls the webhooks as soon as their configurations exist, and with failurePolicy=fail it refuses every NodePool while nobody answers: the manager must serve them.
	//lesson:hint The webhook package has a setup function that takes the manager, as the controller has; call it after the controller's and return its error, wrapped.
	//lesson:test TestTheManagerTellsWhatItDoesInEvents TestTheManagerServesTheNodePoolWebhooks
	if err := webhooknodesv1.SetupNodePoolWebhookWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the NodePool webhooks: %w", err)
	}
	//lesson:end

	// Ready only once the webhook server answers: until then the API server refuses
	// every NodePool (failurePolicy=fail), so a Service must not send it requests
	// yet, and make lesson-N waits for it.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook server's ready check: %w", err)
	}
	//stage:end
	return nil
}

// managerOptions returns the manager's options before the flags are parsed: the
// client limits below, and a client that reads its own writes (readYourWrites).
//
// The default cache: it holds what the controller watches and reads, which is every
// NodePool, every node and every RuntimeClass, and nothing else. No pod: a pool never
// reads one.
//
// Client limits sized for a pool change: a spec change patches every member of the pool
// in one pass (syncNodes), one patch each, so its requests come in one burst as big as
// the pool. At the workshop's default limits (100 a second after a burst of 200), 500
// members wait 3 s for the rate limiter alone; a burst of 600 lets them go out at once,
// at the pace the API server takes them, with room for the pass's other requests, and
// 300 a second refill it in 2 s. The API server still guards itself (API Priority and
// Fairness); --kube-api-qps and --kube-api-burst still override them.
func managerOptions() bootstrap.Options {
	return bootstrap.Options{Name: "nodepool", KubeAPIQPS: 300, KubeAPIBurst: 600, Configure: readYourWrites}
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

//stage:9

// leaderElection sets how the Deployment's replicas share the work (with --leader-elect):
// the one that holds the Lease reconciles, renewing it every RetryPeriod; the others try
// to take it every RetryPeriod. A leader that cannot renew for RenewDeadline gives up and
// exits; a leader that dies leaves the Lease to expire LeaseDuration after its last
// renewal, as another replica sees it: a crash stops reconciling for at most about
// LeaseDuration plus two RetryPeriods (and their jitter).
// A leader that stops cleanly (SIGTERM, a rolling update) releases the Lease at once.
func leaderElection(o *ctrl.Options) {
	//lesson:todo(2) Time the leader election.
	//lesson:todo Set the lease's timing: LeaseDuration 10s, RenewDeadline 6s, RetryPeriod
	//lesson:todo 2s (ptr.To from k8s.io/utils/ptr), and LeaderElectionReleaseOnCancel,
	//lesson:todo so that a replica stopped by a rolling update hands the Lease over at once.
	//lesson:todo See "Leader election" in docs/lesson-09.md.
	//lesson:hint client-go requires LeaseDuration > RenewDeadline > RetryPeriod times its jitter factor (1.2); the longer the lease, the longer a crashed leader leaves the work undone.
	//lesson:hint The fields of ctrl.Options are pointers to time.Duration: ptr.To makes one. LeaderElectionReleaseOnCancel makes a replica that stops cleanly give the Lease up at once.
	//lesson:test TestTheLeaseTimingIsSetAndConsistent TestASecondReplicaWaitsThenLeadsWhenTheLeaderStops
	o.LeaseDuration = ptr.To(10 * time.Second)
	o.RenewDeadline = ptr.To(6 * time.Second)
	o.RetryPeriod = ptr.To(2 * time.Second)
	o.LeaderElectionReleaseOnCancel = true
	//lesson:end
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

//stage:end
