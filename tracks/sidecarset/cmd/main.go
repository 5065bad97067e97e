// Command manager runs the SidecarSet operator against the current kube context: its
// admission webhooks and, from lesson 11 on, its controller.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	"github.com/kube-workshop/operator-workshop/shared/securemetrics"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/controller"
	"github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/sidecars"
	webhooksidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/webhook/sidecars/v1"
)

// The manager's own permissions, beyond its controller's and webhooks' (internal/): the
// metrics endpoint's filter (securemetrics.Serve) asks the API server who a scraper
// is and whether it may read /metrics. controller-gen writes them into
// config/rbac/role.yaml.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

func main() {
	opts := bootstrap.Options{Name: "sidecarset"}
	//stage:11
	// Of every pod, the manager caches only what the controller reads (see "Cache only
	// what you read" in docs/lesson-11.md).
	opts.Cache = controller.CacheOptions()
	//stage:end
	// Deployed, the manager serves its metrics to the cluster: only over HTTPS, and only
	// to whoever the API server says may read them, unless --metrics-secure=false.
	securemetrics.BindFlag(flag.CommandLine, &opts, "make bench-sidecarset")
	opts.BindFlags(flag.CommandLine)
	var f flags
	f.bind(flag.CommandLine, serviceAccountNamespaceFile)
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sidecarsv1.AddToScheme(scheme))

	//stage:17
	f.configure(&opts)
	stopTracing, err := f.startTracing()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = bootstrap.Run(opts, scheme, f.setup)
	// The spans still in the batcher reach the file only when the provider stops.
	stopTracing()
	if err != nil {
		os.Exit(1)
	}
	//stage:old if err := bootstrap.Run(opts, scheme, f.setup); err != nil {
	//stage:old 	os.Exit(1)
	//stage:old }
	//stage:end
}

// flags are the operator's own command-line flags, next to bootstrap's.
type flags struct {
	// managerNamespace is the namespace the manager runs in. Its pods, like
	// kube-system's, never get a sidecar and are never counted: they must start for the
	// webhook to answer (sidecars.ExcludedNamespaces).
	managerNamespace string
	//stage:17

	// pprofAddr is where the manager serves Go's profiles, /debug/pprof/ ("" or "0":
	// nowhere).
	pprofAddr string
	// traceFile is the file the spans of the reconcile passes are written to ("": none).
	traceFile string
	// trimPods false caches whole pods, without lesson 11's transform: for make
	// bench-sidecarset-heap to compare.
	trimPods bool
	//stage:end
}

// serviceAccountNamespaceFile is where a pod finds its own namespace.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// bind registers the flags on fs. --manager-namespace defaults to the namespace of the
// pod the manager runs in, read from namespaceFile, and outside a pod to
// sidecars.DefaultManagerNamespace, the one config/default deploys it to.
func (f *flags) bind(fs *flag.FlagSet, namespaceFile string) {
	namespace := sidecars.DefaultManagerNamespace
	if data, err := os.ReadFile(namespaceFile); err == nil && strings.TrimSpace(string(data)) != "" {
		namespace = strings.TrimSpace(string(data))
	}
	fs.StringVar(&f.managerNamespace, "manager-namespace", namespace,
		"The namespace the manager runs in, whose pods get no sidecar (defaults to the pod's own, or "+
			sidecars.DefaultManagerNamespace+" outside a pod).")
	//stage:17
	fs.StringVar(&f.pprofAddr, "pprof-bind-address", "",
		"The address Go's profiles (/debug/pprof/) are served on, such as 127.0.0.1:8082; empty serves none.")
	fs.StringVar(&f.traceFile, "trace-file", "",
		"The file the spans of the reconcile passes and their API calls are written to, as JSON; empty traces nothing.")
	fs.BoolVar(&f.trimPods, "trim-pods", true,
		"Cache only what the controller reads of each pod (TrimPod); false caches whole pods, for make bench-sidecarset-heap to compare.")
	//stage:end
}

// setup registers with the manager what the operator runs: from lesson 11 on its
// controller, and its two webhooks with the ready checks of their server and of the
// cache they read.
func (f flags) setup(mgr ctrl.Manager) error {
	//stage:11
	//stage:17
	// The controller's client sends its API calls through a traced transport: each one
	// shows as a child span of the pass that made it.
	tracedClient, tracedReader, err := tracedClients(mgr)
	if err != nil {
		return err
	}
	//stage:end
	//stage:17
	err = (&controller.SidecarSetReconciler{
		//stage:old err := (&controller.SidecarSetReconciler{
		//stage:end
		//stage:17
		Client:    tracedClient,
		APIReader: tracedReader,
		//stage:old Client:             mgr.GetClient(),
		//stage:old APIReader:          mgr.GetAPIReader(),
		//stage:end
		Scheme:             mgr.GetScheme(),
		Recorder:           mgr.GetEventRecorder("sidecarset-controller"),
		ExcludedNamespaces: sidecars.ExcludedNamespaces(f.managerNamespace),
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the SidecarSet controller: %w", err)
	}
	//stage:end
	//lesson:10.1
	if err := webhooksidecarsv1.SetupSidecarSetWebhookWithManager(mgr, f.managerNamespace); err != nil {
		return fmt.Errorf("setting up the SidecarSet webhook: %w", err)
	}
	if err := webhooksidecarsv1.SetupPodWebhookWithManager(mgr, f.managerNamespace); err != nil {
		return fmt.Errorf("setting up the pod webhook: %w", err)
	}
	// Ready only once the webhook server answers: until then pod creations wait for
	// the webhook's timeout and go through without sidecars. And only once the cache
	// the pod webhook reads has synced: controller-runtime starts the webhook server
	// before the caches, and a webhook that reads an empty cache admits pods without
	// their sidecars.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook server's ready check: %w", err)
	}
	if err := mgr.AddReadyzCheck("cache", cacheSynced(mgr.GetCache())); err != nil {
		return fmt.Errorf("adding the cache's ready check: %w", err)
	}
	//lesson:end
	return nil
}

// cacheSynced is a ready check that passes once the cache has synced every informer it
// has, or fails after a moment.
func cacheSynced(c cache.Cache) healthz.Checker {
	return func(req *http.Request) error {
		ctx := context.Background()
		if req != nil {
			ctx = req.Context()
		}
		ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("the manager's cache has not synced yet")
		}
		return nil
	}
}
