// Command manager runs the NodePool operator against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/08-nodepool-webhooks/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/lessons/08-nodepool-webhooks/internal/controller"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

func main() {
	// The default cache: it holds what the controller watches and reads, which is every
	// NodePool, every node and every RuntimeClass, and nothing else. No pod: a pool
	// never reads one.
	opts := bootstrap.Options{Name: "nodepool"}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(nodesv1.AddToScheme(scheme))

	if err := bootstrap.Run(opts, scheme, setup); err != nil {
		os.Exit(1)
	}
}

// setup registers with the manager what it runs: the NodePool controller and, from
// lesson 08 on, the NodePool webhooks. main hands it to bootstrap.Run; the tests of cmd
// run it in their manager.
func setup(mgr ctrl.Manager) error {
	err := (&controller.NodePoolReconciler{
		Client:    mgr.GetClient(),
		Scheme:    mgr.GetScheme(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder("nodepool-controller"),
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the NodePool controller: %w", err)
	}
	// TODO(1): Register the webhooks with the manager.
	// Register the NodePool webhooks: import internal/webhook/nodes/v1 as
	// webhooknodesv1 and call its SetupNodePoolWebhookWithManager. See
	// "Registering the webhooks" in docs/lesson-08.md.

	// Ready only once the webhook server answers: until then the API server refuses
	// every NodePool (failurePolicy=fail), so a Service must not send it requests
	// yet, and make lesson-N waits for it.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook server's ready check: %w", err)
	}
	return nil
}
