// Command manager runs the NodePool operator against the current kube context.
package main

import (
	"flag"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/08-nodepool-webhooks/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/lessons/08-nodepool-webhooks/internal/controller"
	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

func main() {
	opts := managerOptions()
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
	// The manager serves the NodePool webhooks: while nobody answers them, the API
	// server refuses every NodePool. See "Registering the webhooks" in
	// docs/lesson-08.md.

	// Ready only once the webhook server answers: until then the API server refuses
	// every NodePool (failurePolicy=fail), so a Service must not send it requests
	// yet, and make lesson-N waits for it.
	if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
		return fmt.Errorf("adding the webhook server's ready check: %w", err)
	}
	return nil
}

// managerOptions returns the manager's options before the flags are parsed: the
// client limits below, and a client that reads its own writes (readYourWrites).
//
// The default cache: it holds what the controller watches and reads, which is every
// NodePool, every node and every RuntimeClass, and nothing else (controller.CacheByObject
// says what it keeps of some). No pod: a pool never reads one.
//
// Client limits sized for a pool change: a spec change patches every member of the pool
// in one pass (syncNodes), one patch each, so its requests come in one burst as big as
// the pool. At the workshop's default limits (100 a second after a burst of 200), 500
// members wait 3 s for the rate limiter alone; a burst of 600 lets them go out at once,
// at the pace the API server takes them, with room for the pass's other requests, and
// 300 a second refill it in 2 s. The API server still guards itself (API Priority and
// Fairness); --kube-api-qps and --kube-api-burst still override them.
func managerOptions() bootstrap.Options {
	return bootstrap.Options{
		Name: "nodepool", KubeAPIQPS: 300, KubeAPIBurst: 600, Configure: readYourWrites,
		Cache: cache.Options{ByObject: controller.CacheByObject()},
	}
}

// readYourWrites makes a read from the manager's cache wait until the cache has seen the
// manager's own writes before it. A pass that patches hundreds of nodes at once ends
// before the watch has brought back the last of them, and their events have queued the
// pass after it: that pass would find those nodes as they were, patch them again with
// the old resourceVersion and be refused (409 Conflict), a wasted request and a read
// each. Waiting costs the next pass a few milliseconds. (controller-runtime calls the
// option experimental: its details may change.)
func readYourWrites(o *ctrl.Options) {
	o.Client.Cache = &client.CacheOptions{EnableReadYourWritesConsistency: ptr.To(true)}
}
