// Command manager runs the SidecarSet operator against the current kube context: its
// admission webhooks and, from lesson 11 on, its controller.
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
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/11-sidecarset-status/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/solutions/11-sidecarset-status/internal/controller"
	webhookv1 "github.com/kube-workshop/operator-workshop/solutions/11-sidecarset-status/internal/webhook/v1"
)

func main() {
	opts := bootstrap.Options{Name: "sidecarset"}
	// Of every pod, the manager caches only what the controller reads (see "Cache only
	// what you read" in docs/lesson-11.md).
	opts.Cache = controller.CacheOptions()
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sidecarsv1.AddToScheme(scheme))

	if err := bootstrap.Run(opts, scheme, setup); err != nil {
		os.Exit(1)
	}
}

// setup registers with the manager what the operator runs: from lesson 11 on its
// controller, and its two webhooks with the ready check of their server.
func setup(mgr ctrl.Manager) error {
	err := (&controller.SidecarSetReconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("sidecarset-controller"),
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the SidecarSet controller: %w", err)
	}
	if err := webhookv1.SetupSidecarSetWebhookWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the SidecarSet webhook: %w", err)
	}
	if err := webhookv1.SetupPodWebhookWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the pod webhook: %w", err)
	}
	// Ready only once the webhook server answers: until then pod creations wait for
	// the webhook's timeout and go through without sidecars.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook server's ready check: %w", err)
	}
	return nil
}
