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

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/05-nodepool/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/solutions/05-nodepool/internal/controller"
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
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the NodePool controller: %w", err)
	}
	return nil
}
