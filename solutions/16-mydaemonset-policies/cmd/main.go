// Command manager runs the MyDaemonSet operator against the current kube context: its
// controller and, from lesson 04 on, its admission webhooks.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	"github.com/kube-workshop/operator-workshop/shared/securemetrics"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/internal/controller"
	webhookappsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/internal/webhook/apps/v1"
)

func main() {
	// Of all pods, the manager caches only those a MyDaemonSet created, unless
	// --cache-pods=all says otherwise (see "Cache only what you need" in docs/lesson-03.md).
	opts := bootstrap.Options{Name: "mydaemonset", Cache: controller.CacheOptions()}
	// Deployed, the manager serves its metrics to the cluster: only over HTTPS, and only
	// to whoever the API server says may read them, unless --metrics-secure=false.
	securemetrics.BindFlag(flag.CommandLine, &opts, "make bench-mydaemonset")
	opts.BindFlags(flag.CommandLine)
	flag.Func("cache-pods",
		`Which pods the manager caches: "own" (the default), only the pods MyDaemonSets created, `+
			`or "all", every pod of the cluster, which is what a manager caches unless told otherwise. `+
			`make bench-mydaemonset compares the memory of the two.`,
		func(value string) error {
			switch value {
			case "own":
				opts.Cache = controller.CacheOptions()
			case "all":
				opts.Cache = cache.Options{}
			default:
				return errors.New(`want "own" or "all"`)
			}
			return nil
		})
	// 1 keeps the log of one pass in one piece, which is what a learner reads. Raising it
	// is safe: the work queue never hands the same MyDaemonSet to two workers at once, so
	// only passes of different MyDaemonSets overlap, and they share nothing but the
	// expectations, which lock.
	var maxConcurrentReconciles int
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 1,
		"How many different MyDaemonSets are reconciled at once; one MyDaemonSet is never "+
			"reconciled by two workers at a time. Raise it when many MyDaemonSets wait on the API server.")
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(appsv1.AddToScheme(scheme))

	err := bootstrap.Run(opts, scheme, func(mgr ctrl.Manager) error {
		return setup(mgr, maxConcurrentReconciles)
	})
	if err != nil {
		os.Exit(1)
	}
}

// setup registers with the manager what it runs: the MyDaemonSet controller and, from
// lesson 04 on, the MyDaemonSet webhooks.
func setup(mgr ctrl.Manager, maxConcurrentReconciles int) error {
	err := (&controller.MyDaemonSetReconciler{
		Client:                  mgr.GetClient(),
		Scheme:                  mgr.GetScheme(),
		APIReader:               mgr.GetAPIReader(),
		MaxConcurrentReconciles: maxConcurrentReconciles,
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the MyDaemonSet controller: %w", err)
	}
	if err := webhookappsv1.SetupMyDaemonSetWebhookWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the MyDaemonSet webhooks: %w", err)
	}
	// Ready only once the webhook server answers: until then the API server refuses
	// every MyDaemonSet (failurePolicy=fail), so a Service must not send it requests
	// yet, and make lesson-N waits for it.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook server's ready check: %w", err)
	}
	return nil
}

// The manager's own permissions, beyond its controller's (internal/controller): the
// metrics endpoint's filter (securemetrics.Serve) asks the API server who a scraper
// is and whether it may read /metrics. controller-gen writes them into
// config/rbac/role.yaml.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
