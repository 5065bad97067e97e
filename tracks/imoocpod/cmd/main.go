// Command manager runs the ImoocPod controller against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	appsv1 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v1"
	appsv2 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v2"
	"github.com/kube-workshop/operator-workshop/tracks/imoocpod/internal/controller"
	webhookappsv1 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/internal/webhook/apps/v1"
)

func main() {
	opts := bootstrap.Options{Name: "imoocpod"}
	opts.BindFlags(flag.CommandLine)
	//stage:2
	var (
		filterEvents            bool
		maxConcurrentReconciles int
	)
	flag.BoolVar(&filterEvents, "filter-events", true,
		"Drop the events that cannot change what a reconcile does: ImoocPod updates that leave "+
			"the spec alone (the controller's own status patches) and pod updates that change "+
			"nothing the controller reads. Turn it off to count the reconciles they cost.")
	// 1 keeps the log of one pass in one piece, which is what a learner reads. Raising it
	// is safe: the work queue never hands the same ImoocPod to two workers at once, so
	// only passes of different ImoocPods overlap, and they share nothing but the
	// expectations, which lock.
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 1,
		"How many different ImoocPods are reconciled at once; one ImoocPod is never reconciled "+
			"by two workers at a time. Raise it when many ImoocPods wait on the API server.")
	//stage:end
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	//stage:13
	utilruntime.Must(appsv1.AddToScheme(scheme))
	//stage:end
	utilruntime.Must(appsv2.AddToScheme(scheme))

	err := bootstrap.Run(opts, scheme, func(mgr ctrl.Manager) error {
		//stage:13
		// The API server converts every v1 read and write through the manager: ready only
		// once the webhook server answers.
		if err := webhookappsv1.SetupImoocPodWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the ImoocPod conversion webhook: %w", err)
		}
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return fmt.Errorf("adding the webhook server's ready check: %w", err)
		}
		//stage:end
		return (&controller.ImoocPodReconciler{
			Client: mgr.GetClient(),
			Scheme: mgr.GetScheme(),
			//stage:2
			FilterEvents:            filterEvents,
			MaxConcurrentReconciles: maxConcurrentReconciles,
			APIReader:               mgr.GetAPIReader(),
			//stage:end
		}).SetupWithManager(mgr)
	})
	if err != nil {
		os.Exit(1)
	}
}
