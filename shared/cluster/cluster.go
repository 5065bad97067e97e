// Package cluster finds the cluster a workshop program talks to, and refuses one that is
// not a workshop cluster, so that a learner's half-finished controller never runs against
// a cluster that matters.
package cluster

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

const (
	// LocalContext is the kube context of the embedded cluster that `make cluster-up`
	// starts (kwokctl names it kwok-<cluster name>). make test starts its own,
	// kwok-workshop-test; any context that starts with LocalContext is a workshop one.
	LocalContext = "kwok-workshop"

	// KindContextPrefix starts the name of every context that kind creates.
	KindContextPrefix = "kind-"

	// AllowContextEnv names a variable that lets a program use one more context, for a
	// learner who knowingly wants their controller on another cluster.
	AllowContextEnv = "WORKSHOP_ALLOW_CONTEXT"

	// InClusterEnv names the variable a deployed manager's pod sets to "true" (see each
	// stage's config/manager) to use the in-cluster config. Being in a pod is not enough:
	// cloud IDEs and CI runners are pods too, with a service account of the cluster that
	// hosts them.
	InClusterEnv = "WORKSHOP_IN_CLUSTER"
)

// Config loads the kubeconfig the way kubectl does ($KUBECONFIG, then ~/.kube/config,
// honouring --context through overrides) and returns the REST config of its current
// context after checking that the context is allowed. Without a kubeconfig, in a pod
// whose InClusterEnv is "true", it returns the in-cluster config: a deployed manager is
// where it belongs.
func Config(contextOverride string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	overrides := &clientcmd.ConfigOverrides{CurrentContext: contextOverride}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)

	raw, err := loader.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("reading kubeconfig: %w", err)
	}
	name := raw.CurrentContext
	if contextOverride != "" {
		name = contextOverride
	}
	if name == "" && os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		if os.Getenv(InClusterEnv) != "true" {
			return nil, fmt.Errorf("no current kube context, and this program runs in a pod of some cluster "+
				"(KUBERNETES_SERVICE_HOST is set) that is not known to be a workshop one: a deployed manager "+
				"sets %s=true in its Deployment; elsewhere, point KUBECONFIG at the workshop cluster "+
				"(`eval $(make -s env)`)", InClusterEnv)
		}
		return rest.InClusterConfig()
	}
	if err := CheckContext(name, os.Getenv(AllowContextEnv)); err != nil {
		return nil, err
	}
	return loader.ClientConfig()
}

// CheckContext returns nil when a workshop program may use the kube context name: the
// embedded cluster's, any kind cluster's, or the one the learner allowed explicitly.
func CheckContext(name, allowed string) error {
	switch {
	case name == "":
		return fmt.Errorf("no current kube context: start the workshop cluster with `make cluster-up` " +
			"and point KUBECONFIG at it (`eval $(make -s env)`)")
	case strings.HasPrefix(name, LocalContext), strings.HasPrefix(name, KindContextPrefix), allowed != "" && name == allowed:
		return nil
	default:
		return fmt.Errorf("kube context %q is not a workshop cluster (want %q* or %q*); "+
			"to use it anyway, set %s=%s", name, LocalContext, KindContextPrefix, AllowContextEnv, name)
	}
}
