package sidecars

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/11-sidecarset-status/api/sidecars/v1"
)

// ExcludedNamespaces are never given a sidecar. The pod webhook's configuration leaves
// them out (the namespaceSelector of its marker, in internal/webhook/v1/pod_webhook.go),
// so the API server does not even call the manager for their pods: kube-system, whose
// pods the cluster needs to run at all, and the manager's own namespace (config/default),
// whose pods must start for the webhook to answer. Keep the two lists the same;
// TestTheWebhookConfigurationLeavesTheExcludedNamespacesOut checks it.
var ExcludedNamespaces = []string{"kube-system", "sidecarset-system"}

// Excluded reports whether the pods of namespace are never given a sidecar.
func Excluded(namespace string) bool {
	return slices.Contains(ExcludedNamespaces, namespace)
}

// Selects reports whether set selects a pod with podLabels in a namespace with
// namespaceLabels: the pod matches spec.selector, and the namespace matches
// spec.namespaceSelector when there is one. A selector that does not parse selects
// nothing, with an error: the validating webhook refuses such SidecarSets, but one stored
// before it ran must not break pod creation.
func Selects(set *sidecarsv1.SidecarSet, podLabels, namespaceLabels map[string]string) (bool, error) {
	if set.Spec.Selector == nil {
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
