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
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/07-nodepool-status-events/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/solutions/07-nodepool-status-events/internal/controller"
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
		//lesson:todo(2) Give the controller an event recorder.
		//lesson:todo Give the reconciler the manager's recorder of events.k8s.io Events,
		//lesson:todo reporting as nodepool-controller. See "Events" in docs/lesson-07.md.
		//lesson:hint The manager makes recorders: one per controller, named after it, writing events.k8s.io Events.
		//lesson:hint mgr.GetEventRecorder takes the name the Events report as their controller; set it as the reconciler's Recorder field.
		//lesson:test TestTheManagerTellsWhatItDoesInEvents
		Recorder: mgr.GetEventRecorder("nodepool-controller"),
		//lesson:end
	}).SetupWithManager(mgr)
	if err != nil {
		return fmt.Errorf("setting up the NodePool controller: %w", err)
	}
	return nil
}
