// Command manager runs the ImoocPod, MyDaemonSet and NodePool controllers and the
// MyDaemonSet admission webhooks against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/api/apps/v1"
	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/internal/controller"
	webhookappsv1 "github.com/kube-workshop/operator-workshop/lessons/06-nodepool-finalizer/internal/webhook/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

func main() {
	// Of all pods, the manager caches only those its controllers made.
	opts := bootstrap.Options{Name: "apps", Cache: controller.CacheOptions()}
	opts.BindFlags(flag.CommandLine)
	var (
		filterEvents            bool
		maxConcurrentReconciles int
	)
	flag.BoolVar(&filterEvents, "filter-events", true,
		"Drop the events that cannot change what an ImoocPod reconcile does: ImoocPod updates that "+
			"leave the spec alone (the controller's own status patches) and pod updates that change "+
			"nothing the controller reads. Turn it off to count the reconciles they cost. "+
			"The MyDaemonSet controller always filters.")
	// 1 keeps the log of one pass in one piece, which is what a learner reads. Raising it
	// is safe: the work queue never hands the same object to two workers at once, so
	// only passes of different objects overlap, and they share nothing but the
	// expectations, which lock.
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 1,
		"How many different ImoocPods, and how many different MyDaemonSets, are reconciled at once; "+
			"one object is never reconciled by two workers at a time. Raise it when many objects "+
			"wait on the API server.")
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(appsv1.AddToScheme(scheme))
	utilruntime.Must(nodesv1.AddToScheme(scheme))

	err := bootstrap.Run(opts, scheme, func(mgr ctrl.Manager) error {
		err := (&controller.ImoocPodReconciler{
			Client:                  mgr.GetClient(),
			Scheme:                  mgr.GetScheme(),
			FilterEvents:            filterEvents,
			MaxConcurrentReconciles: maxConcurrentReconciles,
		}).SetupWithManager(mgr)
		if err != nil {
			return fmt.Errorf("setting up the ImoocPod controller: %w", err)
		}
		err = (&controller.MyDaemonSetReconciler{
			Client:                  mgr.GetClient(),
			Scheme:                  mgr.GetScheme(),
			APIReader:               mgr.GetAPIReader(),
			MaxConcurrentReconciles: maxConcurrentReconciles,
		}).SetupWithManager(mgr)
		if err != nil {
			return fmt.Errorf("setting up the MyDaemonSet controller: %w", err)
		}
		err = (&controller.NodePoolReconciler{
			Client:    mgr.GetClient(),
			Scheme:    mgr.GetScheme(),
			APIReader: mgr.GetAPIReader(),
		}).SetupWithManager(mgr)
		if err != nil {
			return fmt.Errorf("setting up the NodePool controller: %w", err)
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
	})
	if err != nil {
		os.Exit(1)
	}
}
