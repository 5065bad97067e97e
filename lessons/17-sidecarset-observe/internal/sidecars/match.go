package sidecars

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

// DefaultManagerNamespace is the namespace config/default runs the manager in, and the
// manager's own namespace when it runs outside a pod (its --manager-namespace).
const DefaultManagerNamespace = "sidecarset-system"

// ExcludedNamespaces returns the namespaces whose pods are never given a sidecar, nor
// counted: kube-system, whose pods the cluster needs to run at all, and managerNamespace,
// the manager's own, whose pods must start for the webhook to answer. The pod webhook's
// configuration leaves out the same namespaces (the namespaceSelector of its marker, in
// internal/webhook/sidecars/v1/pod_webhook.go, and config/default, which names the
// manager's), so that the API server does not even call the manager for their pods; the
// webhook and the controller check again, for a configuration installed without it.
// TestTheWebhookConfigurationLeavesTheExcludedNamespacesOut checks that the marker
// leaves out ExcludedNamespaces(DefaultManagerNamespace).
func ExcludedNamespaces(managerNamespace string) []string {
	return []string{metav1.NamespaceSystem, managerNamespace}
}

// Selects reports whether set selects a pod with podLabels in a namespace with
// namespaceLabels: the pod matches spec.selector, and the namespace matches
// spec.namespaceSelector when there is one. A spec.selector that is missing or empty
// ({}, which metav1.LabelSelectorAsSelector reads as "every pod") selects nothing, and so
// does one that does not parse, with an error: the validating webhook refuses such
// SidecarSets, but one stored before it ran must neither break pod creation nor give its
// sidecars to every pod of the cluster.
func Selects(set *sidecarsv1.SidecarSet, podLabels, namespaceLabels map[string]string) (bool, error) {
	if selector := set.Spec.Selector; selector == nil || len(selector.MatchLabels)+len(selector.MatchExpressions) == 0 {
		return false, nil
	}
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return false, fmt.Errorf("spec.selector: %w", err)
	}
	if !selector.Matches(labels.Set(podLabels)) {
		return false, nil
	}
	if set.Spec.NamespaceSelector == nil {
		return true, nil
	}
	namespaceSelector, err := metav1.LabelSelectorAsSelector(set.Spec.NamespaceSelector)
	if err != nil {
		return false, fmt.Errorf("spec.namespaceSelector: %w", err)
	}
	return namespaceSelector.Matches(labels.Set(namespaceLabels)), nil
}
