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

	err := bootstrap.Run(opts, scheme, func(mgr ctrl.Manager) error {
		// TODO: Register both webhooks: webhookv1.SetupSidecarSetWebhookWithManager and
		// webhookv1.SetupPodWebhookWithManager. Then add a ready check named
		// "webhook" that passes once the webhook server answers
		// (mgr.GetWebhookServer().StartedChecker()), as in lesson 04.
		return nil
	})
	if err != nil {
		os.Exit(1)
	}
}
