// Package v1 holds the admission webhooks of the nodes.workshop.dev/v1 kinds: the API
// server calls them, over TLS, on every create and update of a NodePool, first the
// defaulting webhook, then, after the CRD's schema and CEL rules, the validating one.
//
// The CRD already refuses what CEL can check cheaply (lesson 05). The webhook adds what
// CEL cannot afford, every label value and taint key and value, and what needs a
// decision the schema cannot express: the prefixes that belong to Kubernetes.
package v1

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/08-nodepool-webhooks/api/nodes/v1"
)

// SetupNodePoolWebhookWithManager registers both webhooks with the manager's webhook
// server, at the paths controller-runtime derives from the group, version and kind:
// the paths of the markers below.
func SetupNodePoolWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &nodesv1.NodePool{}).
		WithDefaulter(&NodePoolCustomDefaulter{}).
		WithValidator(&NodePoolCustomValidator{}).
		Complete()
}

// DefaultHandler is the RuntimeClass handler of a pool that names none. The CRD's
// +kubebuilder:default gives it to a pool without the field; the defaulting webhook
// gives it to one whose handler is the empty string, which the schema's default leaves
// alone and its pattern refuses.
const DefaultHandler = "runc"

// +kubebuilder:webhook:path=/mutate-nodes-workshop-dev-v1-nodepool,mutating=true,failurePolicy=fail,sideEffects=None,groups=nodes.workshop.dev,resources=nodepools,verbs=create;update,versions=v1,name=mnodepool-v1.kb.io,admissionReviewVersions=v1

// NodePoolCustomDefaulter fills in what a user may leave out of a NodePool. It runs
// before the API server checks the object against the CRD's schema, so it must cope with
// any object, valid or not, and change only what is missing.
type NodePoolCustomDefaulter struct{}

var _ admission.Defaulter[*nodesv1.NodePool] = &NodePoolCustomDefaulter{}

// Default gives an empty spec.handler the default handler, and a taint without an effect
// NoSchedule, the effect of the example pools: it keeps other pods off the pool's nodes
// and evicts none. The schema requires an effect, but it checks after this webhook: a
// taint written without one is stored with NoSchedule, and `kubectl get -o yaml` shows
// it.
func (d *NodePoolCustomDefaulter) Default(_ context.Context, pool *nodesv1.NodePool) error {
	// TODO(2): Fill in the defaults.
	// A pool without a handler gets the default one, and a taint without an effect
	// gets NoSchedule; nothing else changes. See "Defaulting" in
	// docs/lesson-08.md.
	return nil
}

// +kubebuilder:webhook:path=/validate-nodes-workshop-dev-v1-nodepool,mutating=false,failurePolicy=fail,sideEffects=None,groups=nodes.workshop.dev,resources=nodepools,verbs=create;update,versions=v1,name=vnodepool-v1.kb.io,admissionReviewVersions=v1

// NodePoolCustomValidator refuses the NodePools whose labels and taints no node would
// accept, or that would fight Kubernetes over the nodes, before they are stored: without
// it such a pool fails on every pass, for every member, until someone reads its status.
type NodePoolCustomValidator struct{}

var _ admission.Validator[*nodesv1.NodePool] = &NodePoolCustomValidator{}

// ValidateCreate checks a new NodePool.
func (v *NodePoolCustomValidator) ValidateCreate(_ context.Context, pool *nodesv1.NodePool) (admission.Warnings, error) {
	return validateNodePool(pool)
}

// ValidateUpdate checks a changed NodePool with the rules of a create, but only when its
// spec changed. The webhook sees every update of a pool, not only the user's: the
// controller adds and removes its finalizer (lesson 06) with patches of the pool. A pool
// stored before these rules existed, with a label they now refuse, must still get and
// lose its finalizer, or it could never be deleted; and a warning about a spec nobody
// touched would land in the manager's log on every finalizer patch.
func (v *NodePoolCustomValidator) ValidateUpdate(_ context.Context, oldPool, pool *nodesv1.NodePool) (admission.Warnings, error) {
	// TODO(8): Check an update only when it changes the spec.
	// An update that leaves the spec as it was goes through, with no warning,
	// whatever it changes in the metadata; an update of the spec is checked as a
	// create is. See "Updates, and the controller's own writes" in
	// docs/lesson-08.md.
	return nil, nil
}

// ValidateDelete is never called: the marker registers the webhook for create and
// update only. A delete needs no check.
func (v *NodePoolCustomValidator) ValidateDelete(context.Context, *nodesv1.NodePool) (admission.Warnings, error) {
	return nil, nil
}

// validateNodePool returns every problem of pool in one Invalid error, as the API server
// reports its own checks, or else the warnings for what is allowed but unwise. It reads
// nothing but pool, so that the tests and the fuzzer can call it directly.
func validateNodePool(pool *nodesv1.NodePool) (admission.Warnings, error) {
	// TODO(6): Refuse every problem in one answer.
	// Refuse a pool with problems in one answer that names every field, as the API
	// server reports its own checks: those of its name (at metadata.name) and of
	// its spec (at spec), for NodePool's group and kind and the pool's name. A pool
	// without problems gets its warnings. See "Validating" in docs/lesson-08.md.
	return nil, nil
}

// validateName requires a name that can be used where the controller uses it: as the
// name part of the membership label, and in the name of the pool's RuntimeClass. The API
// server has checked that it is a DNS subdomain, and the CRD's CEL rule that it has at
// most 63 characters, before this webhook is called; this states why, and guards callers
// without an API server.
func validateName(name string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	member := nodesv1.MemberLabelPrefix + name
	for _, msg := range content.IsLabelKey(member) {
		errs = append(errs, field.Invalid(path, name, fmt.Sprintf("the membership label %s: %s", member, msg)))
	}
	runtimeClass := nodesv1.RuntimeClassPrefix + name
	for _, msg := range content.IsDNS1123Subdomain(runtimeClass) {
		errs = append(errs, field.Invalid(path, name, fmt.Sprintf("the RuntimeClass name %s: %s", runtimeClass, msg)))
	}
	if slices.Contains(nodeRoleNames, name) {
		errs = append(errs, field.Invalid(path, name, fmt.Sprintf(nodeRoleNameMessage, member)))
	}
	return errs
}

// nodeRoleNames are the roles that kubeadm, kind and other installers give nodes when
// they register them. A pool of such a name adopts every node that carries the role's
// label, those the manager runs on included: a NoExecute taint of that pool evicts the
// manager, and then nobody answers the webhooks, which refuse every NodePool change,
// the one that would remove the taint included.
var nodeRoleNames = []string{"control-plane", "master", "worker"}

const nodeRoleNameMessage = "a NodePool may not be named after a node role: %s is a label installers give nodes " +
	"already, and the pool would adopt them, the manager's own included; choose another name"

// validateSpec returns the problems of every field of spec, each with its path.
func validateSpec(spec *nodesv1.NodePoolSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateLabels(spec.Labels, path.Child("labels"))...)
	errs = append(errs, validateTaints(spec.Taints, path.Child("taints"))...)
	errs = append(errs, validateHandler(spec.Handler, path.Child("handler"))...)
	return errs
}

// Why a pool may not use a prefix of Kubernetes' own: the messages of the refusals.
const (
	membershipLabelMessage = "node-role.kubernetes.io/ labels decide which pools a node belongs to; a NodePool cannot set them"
	reservedLabelMessage   = "the prefix %s/ is reserved for Kubernetes, whose kubelet, cloud provider and controllers set and read these labels; " +
		"use a prefix of your own, or node-restriction.kubernetes.io/ for a label that no kubelet may change"
	reservedTaintMessage = "the prefix %s/ is reserved for Kubernetes: the node lifecycle controller adds and removes node.kubernetes.io/ " +
		"taints as nodes fail and recover, and a pool would keep them on healthy nodes; use a prefix of your own"
)

// nodeRestrictionPrefix is the one reserved prefix a pool may use for its labels.
// Kubernetes keeps it for administrators who label nodes to isolate workloads, which is
// what a pool does: the NodeRestriction admission plugin forbids kubelets to set or
// change these labels, so a compromised node cannot move itself into a pool's node
// selector.
const nodeRestrictionPrefix = "node-restriction.kubernetes.io"

// reservedPrefix returns the prefix of key (what comes before the "/") when Kubernetes
// reserves it: kubernetes.io and k8s.io, and every subdomain of either, such as
// node.kubernetes.io or node-role.kubernetes.io. A key without a prefix, or with a prefix
// that only ends in those words (example-kubernetes.io), is the user's.
func reservedPrefix(key string) (string, bool) {
	// TODO(3): Tell a reserved prefix.
	// Tell a key whose prefix (before its "/") Kubernetes reserves: kubernetes.io,
	// k8s.io and every subdomain of them, returned with true. A key without a
	// prefix, or a lookalike such as example-kubernetes.io, gives "" and false.
	// See "Reserved prefixes" in docs/lesson-08.md.
	return "", false
}

// validateLabels requires label keys and values a node accepts, and keys outside the
// prefixes Kubernetes reserves (except node-restriction.kubernetes.io/). The schema's CEL
// rule checks the keys' format already; the values would cost it more than the API
// server allows, and without this check a bad value fails every pass, on every member.
// Keys are checked in sorted order, so that the message is the same on every call.
func validateLabels(labels map[string]string, path *field.Path) field.ErrorList {
	// TODO(4): Check the labels.
	// Report every problem of the labels, key by key in sorted order, at the
	// label's path: each reason a node would refuse the key or the value, as
	// invalid; and a valid key under a reserved prefix as forbidden, with the
	// node-role message for node-role.kubernetes.io and the reserved-label message
	// otherwise, except under the prefix NodeRestriction leaves to admins. See
	// "Validating" in docs/lesson-08.md.
	return nil
}

// validateTaints requires taints a node accepts, with the rules of the API server's node
// validation: a key that is a label key, a value that is a label value, one of the three
// effects, and each key and effect once. The schema checks the effects and the
// duplicates before this webhook is called, so those two checks only matter to callers
// without an API server. Keys under a reserved prefix are refused: those taints are
// Kubernetes' (node-restriction.kubernetes.io/ included: it is a prefix for labels).
func validateTaints(taints []corev1.Taint, path *field.Path) field.ErrorList {
	// TODO(5): Check the taints.
	// Report every problem of each taint, at its own path: a missing key as
	// required, else a key a node would refuse as invalid, else a reserved one as
	// forbidden; a bad value as invalid; a bad effect; and a key and effect seen
	// before as a duplicate, saying "taints must be unique by key and effect". See
	// "Validating" in docs/lesson-08.md.
	return nil
}

// validateEffect requires one of the three effects a node accepts. An empty effect is
// what the defaulter fills in, so only a caller without the defaulter sees it refused.
func validateEffect(effect corev1.TaintEffect, path *field.Path) field.ErrorList {
	switch effect {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	case "":
		return field.ErrorList{field.Required(path, "")}
	}
	return field.ErrorList{field.NotSupported(path, effect, []corev1.TaintEffect{
		corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute,
	})}
}

// validateHandler requires what the API server requires of a RuntimeClass's handler: a
// DNS label. The schema's pattern checks it first; an empty handler is what the defaulter
// fills in.
func validateHandler(handler string, path *field.Path) field.ErrorList {
	if handler == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsDNS1123Label(handler) {
		errs = append(errs, field.Invalid(path, handler, msg))
	}
	return errs
}

// warningsFor warns about what the API server lets through but a user may regret, each
// warning starting with the path of its field:
//
//   - a NoExecute taint: every node that joins the pool evicts the running pods that do
//     not tolerate it, at once, where NoSchedule only keeps new ones away;
//   - a pool without labels: its RuntimeClass has no node selector, so the pods that ask
//     for it may run on any node, not only the pool's.
func warningsFor(pool *nodesv1.NodePool, path *field.Path) admission.Warnings {
	// TODO(7): Warn about what is allowed but unwise.
	// Warn, without refusing, about each NoExecute taint and about a pool without
	// labels, each warning starting with the path of its field; nothing when there
	// is nothing to warn about. See "Warnings" in docs/lesson-08.md.
	return nil
}
