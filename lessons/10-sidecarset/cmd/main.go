// Command manager runs the SidecarSet operator against the current kube context: its
// admission webhooks and, from lesson 11 on, its controller.
package main

import (
	"flag"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/10-sidecarset/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

func main() {
	opts := bootstrap.Options{Name: "sidecarset"}
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
	// TODO(1): Register the webhooks and their ready check.
	// Import internal/webhook/v1 as webhookv1 and register both webhooks:
	// webhookv1.SetupSidecarSetWebhookWithManager and
	// webhookv1.SetupPodWebhookWithManager. Then add a ready check named
	// "webhook" that passes once the webhook server answers
	// (mgr.GetWebhookServer().StartedChecker()), as in lesson 04.
	return nil
}
