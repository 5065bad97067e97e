// Command manager runs the ImoocPod and MyDaemonSet controllers and the MyDaemonSet
// admission webhooks against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/04-mydaemonset-webhooks/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/lessons/04-mydaemonset-webhooks/internal/controller"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

func main() {
	opts := bootstrap.Options{Name: "apps"}
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
			MaxConcurrentReconciles: maxConcurrentReconciles,
		}).SetupWithManager(mgr)
		if err != nil {
			return fmt.Errorf("setting up the MyDaemonSet controller: %w", err)
		}
		// TODO: Register the MyDaemonSet webhooks: import internal/webhook/apps/v1 as
		// webhookappsv1 and call its SetupMyDaemonSetWebhookWithManager. Then add a
		// ready check named "webhook" that passes once the webhook server answers
		// (mgr.GetWebhookServer().StartedChecker()). See "Registering the webhooks"
		// in docs/lesson-04.md.
		return nil
	})
	if err != nil {
		os.Exit(1)
	}
}
