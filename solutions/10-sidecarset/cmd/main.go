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
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/10-sidecarset/api/sidecars/v1"
	webhookv1 "github.com/kube-workshop/operator-workshop/solutions/10-sidecarset/internal/webhook/v1"
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
	//lesson:todo(1) Register the webhooks and their ready check.
	//lesson:todo Register both webhooks: webhookv1.SetupSidecarSetWebhookWithManager and
	//lesson:todo webhookv1.SetupPodWebhookWithManager. Then add a ready check named
	//lesson:todo "webhook" that passes once the webhook server answers
	//lesson:todo (mgr.GetWebhookServer().StartedChecker()), as in lesson 04.
	//lesson:hint The manager serves a webhook only once it is registered with its webhook server.
	//lesson:hint webhookv1 has a Setup...WithManager per webhook; wrap and return their errors.
	//lesson:hint mgr.AddReadyzCheck takes a name and a healthz.Checker, such as StartedChecker().
	//lesson:test TestSetupServesEveryConfiguredWebhook
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
	//lesson:end
	return nil
}
