// Package bootstrap starts a controller manager the same way for every stage, so that a
// stage's cmd/main.go holds only what is particular to it: its scheme, its controllers,
// its webhooks and its own flags.
package bootstrap

import (
	"cmp"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/kube-workshop/operator-workshop/shared/cluster"
)

// Options are the flags every manager in the workshop takes.
type Options struct {
	// Name identifies the manager: it names the leader election lease and the logger.
	Name string

	Context string
	// KubeAPIQPS and KubeAPIBurst are the manager's client-side rate limits. A stage that
	// sets them before BindFlags makes them the defaults of its --kube-api-qps and
	// --kube-api-burst; otherwise those are DefaultKubeAPIQPS and DefaultKubeAPIBurst.
	KubeAPIQPS       float64
	KubeAPIBurst     int
	MetricsAddr      string
	ProbeAddr        string
	LeaderElect      bool
	LeaderElectionNS string
	WebhookPort      int
	WebhookCertDir   string
	Zap              zap.Options

	// Cache says what the manager's cache holds, when a stage restricts it: by default it
	// holds every object of every kind a controller reads, in the whole cluster. No flag
	// sets it; cmd/main.go does. Run strips managedFields from every cached object unless
	// Cache.DefaultTransform says otherwise.
	Cache cache.Options

	// Configure, when set, changes the manager's options after Run has filled them in
	// from the flags and before the manager is created: what a stage sets in code and no
	// flag does, such as the leader election lease's timing or how metrics are served.
	Configure func(*ctrl.Options)
}

// Client-side rate limits. controller-runtime and kube-controller-manager default to 20
// queries per second (burst 30), which caps a scale-up of 500 pods at about 25 s; the API
// server protects itself with API Priority and Fairness, so on a workshop cluster a
// higher limit shows the controller's own speed (make bench-imoocpod). A stage whose
// writes come in bigger bursts sets its own (Options.KubeAPIQPS, Options.KubeAPIBurst).
const (
	DefaultKubeAPIQPS   = 100
	DefaultKubeAPIBurst = 200
)

// BindFlags registers the options as command-line flags on fs with their defaults: the
// client limits the stage set in o, if any, and the workshop's otherwise.
func (o *Options) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Context, "kube-context", "",
		"The kubeconfig context to use instead of the current one.")
	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", cmp.Or(o.KubeAPIQPS, DefaultKubeAPIQPS),
		"The queries per second the manager may send to the API server.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", cmp.Or(o.KubeAPIBurst, DefaultKubeAPIBurst),
		"The burst of queries the manager may send above --kube-api-qps.")
	// Plain HTTP keeps the lessons simple; a production manager serves metrics over
	// HTTPS behind authentication (see controller-runtime's metrics/filters package).
	// A manager started on a laptop or in a cloud IDE serves them to that machine only;
	// the Deployments in config/manager pass ":8080" and ":8081", since the kubelet
	// probes the pod's IP.
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", "127.0.0.1:8080",
		"The address the metrics endpoint binds to (\":8080\" for every interface); 0 disables it.")
	fs.StringVar(&o.ProbeAddr, "health-probe-bind-address", "127.0.0.1:8081",
		"The address the /healthz and /readyz endpoints bind to (\":8081\" for every interface); 0 disables them.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", false,
		"Elect a leader so that only one replica of the manager reconciles at a time.")
	fs.StringVar(&o.LeaderElectionNS, "leader-election-namespace", "",
		"The namespace of the leader election lease (defaults to the manager's own namespace "+
			"in a pod; required with --leader-elect elsewhere).")
	fs.IntVar(&o.WebhookPort, "webhook-port", webhook.DefaultPort,
		"The port the admission webhook server listens on, when the manager has webhooks.")
	fs.StringVar(&o.WebhookCertDir, "webhook-cert-dir", "",
		"The folder holding the webhook server's tls.crt and tls.key (defaults to controller-runtime's).")
	o.Zap.Development = true
	o.Zap.BindFlags(fs)
}

// Run creates the manager, lets setup register the stage's controllers and webhooks,
// and runs until the process receives SIGINT or SIGTERM; then it stops every controller,
// lets in-flight reconciles finish and returns.
func Run(o Options, scheme *runtime.Scheme, setup func(ctrl.Manager) error) error {
	if o.Name == "" {
		return errors.New("bootstrap: Options.Name is required")
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&o.Zap)))
	log := ctrl.Log.WithName("setup")
	if err := checkLeaderElection(o, serviceAccountNamespaceFile); err != nil {
		return fail(log, err, "Refusing to start")
	}

	cfg, err := cluster.Config(o.Context)
	if err != nil {
		return fail(log, err, "Refusing to start")
	}

	cfg.QPS, cfg.Burst = float32(o.KubeAPIQPS), o.KubeAPIBurst

	mgrOpts := ctrl.Options{
		Scheme:                  scheme,
		Cache:                   WithDefaults(o.Cache),
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress:  o.ProbeAddr,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        o.Name + ".workshop.dev",
		LeaderElectionNamespace: o.LeaderElectionNS,
		// Hand the lease over at once on a clean shutdown instead of letting the next
		// leader wait for it to expire.
		LeaderElectionReleaseOnCancel: true,
		WebhookServer: NewWebhookServer(webhook.Options{
			Port:    o.WebhookPort,
			CertDir: o.WebhookCertDir,
		}),
	}
	if o.Configure != nil {
		o.Configure(&mgrOpts)
	}
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		return fail(log, err, "Unable to create the manager")
	}
	if err := setup(mgr); err != nil {
		return fail(log, err, "Unable to set up the controllers")
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return fail(log, err, "Unable to add the health check")
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return fail(log, err, "Unable to add the ready check")
	}

	log.Info("Starting the manager", "name", o.Name, "host", cfg.Host)
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		return fail(log, err, "The manager stopped with an error")
	}
	log.Info("The manager stopped")
	return nil
}

// NewWebhookServer returns the admission webhook server of every workshop manager, and
// of shared/testenv's: the server of opts, speaking HTTP/1.1 only. HTTP/2 lets a client
// open and cancel streams faster than the server can serve them (the Rapid Reset and
// Stream Cancellation attacks, CVE-2023-44487 and CVE-2023-39325); the API server calls
// webhooks over HTTP/1.1 just as well. kubebuilder's scaffold turns HTTP/2 off the same
// way. It also lets the server stop at once: an HTTP/2 connection, even idle, holds a
// graceful shutdown for a second, where an idle HTTP/1.1 one is closed.
func NewWebhookServer(opts webhook.Options) webhook.Server {
	opts.TLSOpts = append(opts.TLSOpts, func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} })
	return webhook.NewServer(opts)
}

// serviceAccountNamespaceFile is where a pod finds its own namespace, which is where
// controller-runtime puts the leader election lease when no namespace is given.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// checkLeaderElection refuses --leader-elect without --leader-election-namespace outside
// a pod (no namespaceFile): controller-runtime would stop with "please specify
// LeaderElectionNamespace", which names no flag. No namespace is a safe default: the
// lease must be where every replica of the manager looks for it.
func checkLeaderElection(o Options, namespaceFile string) error {
	if !o.LeaderElect || o.LeaderElectionNS != "" {
		return nil
	}
	if _, err := os.Stat(namespaceFile); err == nil {
		return nil
	}
	return errors.New("--leader-elect needs --leader-election-namespace outside a pod: the lease " +
		"that elects the leader lives in a namespace, and only a pod has one of its own " +
		"(for example --leader-election-namespace=default, or leave --leader-elect off to run one manager)")
}

// WithDefaults returns the cache options every workshop manager runs with: opts, and
// unless opts set another, a transform that drops each object's managedFields before it
// enters the cache. No controller here reads them (they record who set which field, for
// server-side apply), and on a node they are often the biggest part of the object.
// shared/testenv uses it too, so that the tests run the cache the manager runs.
func WithDefaults(opts cache.Options) cache.Options {
	if opts.DefaultTransform == nil {
		opts.DefaultTransform = cache.TransformStripManagedFields()
	}
	return opts
}

// fail logs err where a learner reads the manager's output, and returns it wrapped.
func fail(log logr.Logger, err error, msg string) error {
	log.Error(err, msg)
	return fmt.Errorf("%s: %w", msg, err)
}
