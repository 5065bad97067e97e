// Command manager runs the ImoocPod controller of lesson 12, built on client-go alone,
// against the current kube context. It does by hand what controller-runtime's manager
// does for solution 02: it makes the clients and the informers, serves the probes and
// the metrics, starts the controller and stops it all on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/kube-workshop/operator-workshop/lessons/12-clientgo/internal/controller"
	"github.com/kube-workshop/operator-workshop/lessons/12-clientgo/internal/imoocpods"
	"github.com/kube-workshop/operator-workshop/shared/cluster"
)

// options are the flags. Their names and defaults are those of the workshop's other
// managers (shared/bootstrap), so that the workshop's scripts start every manager alike.
type options struct {
	kubeContext  string
	qps          float64
	burst        int
	metricsAddr  string
	probeAddr    string
	workers      int
	logLevel     string
	webhookPort  int
	webhookCerts string
}

func main() {
	var o options
	flag.StringVar(&o.kubeContext, "kube-context", "", "The kubeconfig context to use instead of the current one.")
	flag.Float64Var(&o.qps, "kube-api-qps", 100, "The queries per second the manager may send to the API server.")
	flag.IntVar(&o.burst, "kube-api-burst", 200, "The burst of queries the manager may send above --kube-api-qps.")
	flag.StringVar(&o.metricsAddr, "metrics-bind-address", "127.0.0.1:8080",
		"The address the metrics endpoint binds to (\":8080\" for every interface); 0 disables it.")
	flag.StringVar(&o.probeAddr, "health-probe-bind-address", "127.0.0.1:8081",
		"The address the /healthz and /readyz endpoints bind to (\":8081\" for every interface); 0 disables them.")
	flag.IntVar(&o.workers, "workers", 1,
		"How many different ImoocPods are synced at once (controller-runtime's MaxConcurrentReconciles); "+
			"one ImoocPod is never synced by two workers at a time.")
	flag.StringVar(&o.logLevel, "zap-log-level", "debug",
		"The lowest level logged: debug, info or error. Named like the other managers' flag; this manager logs through logr's funcr, not zap.")
	flag.IntVar(&o.webhookPort, "webhook-port", 0, "Ignored: this manager serves no webhooks.")
	flag.StringVar(&o.webhookCerts, "webhook-cert-dir", "", "Ignored: this manager serves no webhooks.")
	flag.Parse()

	log, err := newLogger(os.Stderr, o.logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// The first SIGINT or SIGTERM ends ctx: the controller shuts its queue down, its
	// workers end the passes they hold (whose requests fail with ctx, as Run says), and
	// main returns. stop then gives the signals back their
	// default, so that a second one kills the process (controller-runtime's
	// SetupSignalHandler does the same).
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	// client-go logs through the logger in the context too (klog.FromContext).
	ctx = logr.NewContext(ctx, log)

	if err := run(ctx, o); err != nil {
		log.WithName("setup").Error(err, "The manager stopped with an error")
		os.Exit(1)
	}
	log.WithName("setup").Info("The manager stopped")
}

func run(ctx context.Context, o options) error {
	log := logr.FromContextOrDiscard(ctx).WithName("setup")
	cfg, err := cluster.Config(o.kubeContext)
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}

	// The cache: one shared informer per kind, each a list, then a watch, into an
	// indexed store. No resync (0): nothing here changes behind the watch's back.
	// The pod informer keeps only pods with our label, which are the only ones a pass
	// lists (controller-runtime: cache.Options.ByObject with a label selector).
	podInformers := informers.NewSharedInformerFactoryWithOptions(kube, 0,
		informers.WithTweakListOptions(func(opts *metav1.ListOptions) { opts.LabelSelector = controller.NameLabel }))
	podInformer := podInformers.Core().V1().Pods()
	if err := podInformer.Informer().SetTransform(dropManagedFields); err != nil {
		return err
	}
	imoocPodInformers := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	imoocPodInformer, err := imoocpods.Informer(imoocPodInformers)
	if err != nil {
		return err
	}

	c, err := controller.New(kube, imoocpods.NewClient(dyn), imoocPodInformer, podInformer)
	if err != nil {
		return err
	}

	// Informers start after the controller has asked for them and added its handlers:
	// a factory starts only the informers it has handed out.
	podInformers.StartWithContext(ctx)
	imoocPodInformers.Start(ctx.Done())
	defer podInformers.Shutdown()
	defer imoocPodInformers.Shutdown()

	servers := []*http.Server{
		newServer(o.probeAddr, map[string]http.HandlerFunc{
			"/healthz": func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") },
			// Ready once both caches hold a complete list, when the workers start: a check
			// controller-runtime's readyz leaves to you (healthz.Ping is always ready).
			"/readyz": func(w http.ResponseWriter, _ *http.Request) {
				if !imoocPodInformer.HasSynced() || !podInformer.Informer().HasSynced() {
					http.Error(w, "the caches are not synced yet", http.StatusServiceUnavailable)
					return
				}
				fmt.Fprintln(w, "ok")
			},
		}),
		newServer(o.metricsAddr, map[string]http.HandlerFunc{
			"/metrics": func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/plain; version=0.0.4")
				_ = c.WriteMetrics(w)
			},
		}),
	}
	for _, srv := range servers {
		if srv == nil {
			continue
		}
		// Bind now, so that a port in use fails the start instead of a goroutine.
		ln, err := net.Listen("tcp", srv.Addr)
		if err != nil {
			return fmt.Errorf("listening on %s: %w", srv.Addr, err)
		}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error(err, "Serving failed", "address", srv.Addr)
			}
		}()
		defer func() {
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdown)
		}()
	}

	log.Info("Starting the manager", "host", cfg.Host, "workers", o.workers)
	return c.Run(ctx, o.workers)
}

// newServer returns an HTTP server for handlers on addr, or nil when addr is "0".
func newServer(addr string, handlers map[string]http.HandlerFunc) *http.Server {
	if addr == "0" || addr == "" {
		return nil
	}
	mux := http.NewServeMux()
	for path, h := range handlers {
		mux.HandleFunc(path, h)
	}
	return &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
}

// dropManagedFields is the pod informer's transform: nothing here reads managedFields
// (they record who set which field, for server-side apply), and they are a large part
// of every pod the cache keeps.
func dropManagedFields(obj any) (any, error) {
	if m, ok := obj.(metav1.ObjectMetaAccessor); ok {
		m.GetObjectMeta().SetManagedFields(nil)
	}
	return obj, nil
}
