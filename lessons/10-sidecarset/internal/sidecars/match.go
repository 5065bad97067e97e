package sidecars

import (
	"slices"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/10-sidecarset/api/sidecars/v1"
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
	// TODO(2): Decide which pods a SidecarSet selects.
	// Convert spec.selector with metav1.LabelSelectorAsSelector and match it
	// against podLabels (labels.Set); a nil selector selects nothing. Then, when
	// spec.namespaceSelector is set, do the same with namespaceLabels. Return
	// false and the error, wrapped with the field's name, when a selector does
	// not convert. See "Which pods a SidecarSet selects" in docs/lesson-10.md.
	return false, nil
}
