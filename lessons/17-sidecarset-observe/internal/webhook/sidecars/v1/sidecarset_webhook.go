// Package v1 holds the manager's two admission webhooks: the validating webhook of the
// sidecars.workshop.dev/v1 SidecarSets, and the mutating webhook on pods that gives every
// new pod the sidecars of the SidecarSets that select it. The pod webhook lives here, in
// the SidecarSets' group, not in a core/v1 package of its own as kubebuilder would lay
// out a webhook on pods: it injects the SidecarSets' containers, and the SidecarSet
// webhook checks a SidecarSet by dry-running a pod with its sidecars as that injection
// adds them (asSidecar).
package v1

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

// Names and paths the API server gives every pod itself, before the pod webhook runs: a
// sidecar that took them would clash with them in every pod (see "Reserved names" in
// docs/lesson-10.md).
const (
	// ReservedVolumePrefix starts the name of the service account token volume
	// (kube-api-access-xxxxx) that the ServiceAccount admission plugin adds to a pod.
	ReservedVolumePrefix = "kube-api-access-"
	// ReservedMountPath is where that plugin mounts the token in every container.
	ReservedMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// SetupSidecarSetWebhookWithManager registers the validating webhook of SidecarSets with
// the manager's webhook server, at the path of the marker below. It has the API server
// validate a pod with each SidecarSet's sidecars, created with a dry run in
// managerNamespace, the manager's own.
func SetupSidecarSetWebhookWithManager(mgr ctrl.Manager, managerNamespace string) error {
	return ctrl.NewWebhookManagedBy(mgr, &sidecarsv1.SidecarSet{}).
		WithValidator(&SidecarSetCustomValidator{Pods: mgr.GetClient(), Namespace: managerNamespace}).
		Complete()
}

// The validating webhook fails closed (failurePolicy=fail): a SidecarSet is written
// rarely, by someone who can try again, and one let through unchecked can stop every
// Deployment it selects. It waits for the manager 10 seconds at most, twice
// DryRunTimeout.
// +kubebuilder:webhook:path=/validate-sidecars-workshop-dev-v1-sidecarset,mutating=false,failurePolicy=fail,timeoutSeconds=10,sideEffects=None,groups=sidecars.workshop.dev,resources=sidecarsets,verbs=create;update,versions=v1,name=vsidecarset-v1.kb.io,admissionReviewVersions=v1

// The SidecarSet webhook creates pods with a dry run, in the manager's namespace only:
// a dry run needs the verb create, which no RBAC rule can limit to dry runs.
// +kubebuilder:rbac:groups="",namespace=system,resources=pods,verbs=create

// SidecarSetCustomValidator refuses the SidecarSets that would make the pods they select
// invalid, or select pods by a selector that does not parse. The pod webhook adds a
// SidecarSet's containers to pods the API server then validates: a sidecar the API server
// would refuse must be refused here, once, rather than in every pod it selects. Rather
// than keep a copy of the API server's rules for containers (there are hundreds, and
// each Kubernetes release adds some), it asks the API server (dryRunErrors).
type SidecarSetCustomValidator struct {
	// Pods creates the dry-run pods: the manager's client, which writes to the API server.
	Pods client.Writer
	// Namespace is where they are created: the manager's own, which the pod webhook
	// leaves out, so that the dry run calls no webhook of this manager.
	Namespace string
}

var _ admission.Validator[*sidecarsv1.SidecarSet] = &SidecarSetCustomValidator{}

// ValidateCreate checks a new SidecarSet.
func (v *SidecarSetCustomValidator) ValidateCreate(ctx context.Context, set *sidecarsv1.SidecarSet) (admission.Warnings, error) {
	return v.validate(ctx, set)
}

// ValidateUpdate checks a changed spec as a create; an update that leaves the spec alone
// (a label, a finalizer) goes through, even for a SidecarSet stored before these rules.
func (v *SidecarSetCustomValidator) ValidateUpdate(ctx context.Context, oldSet, set *sidecarsv1.SidecarSet) (admission.Warnings, error) {
	if equality.Semantic.DeepEqual(oldSet.Spec, set.Spec) {
		return nil, nil
	}
	return v.validate(ctx, set)
}

// validate checks set by the webhook's own rules and by the API server's rules for a pod
// that runs its sidecars. When the API server cannot be asked, the problems the webhook's
// rules found are the answer, if any; else the SidecarSet is refused as unchecked.
func (v *SidecarSetCustomValidator) validate(ctx context.Context, set *sidecarsv1.SidecarSet) (admission.Warnings, error) {
	podErrs, err := dryRunErrors(ctx, v.Pods, v.Namespace, set)
	warnings, invalid := validateSidecarSet(set, podErrs)
	if err != nil && invalid == nil {
		return nil, err
	}
	return warnings, invalid
}

// ValidateDelete is never called: the marker registers create and update only.
func (v *SidecarSetCustomValidator) ValidateDelete(context.Context, *sidecarsv1.SidecarSet) (admission.Warnings, error) {
	return nil, nil
}

// validateSidecarSet returns every problem of set in one Invalid error, each with its
// field: those of the webhook's own rules, then podErrs, what the API server refused in a
// pod that runs set's sidecars (dryRunErrors), but for a field the webhook's rules named
// already. Else it returns the warnings for what is allowed but surprising. It reads
// nothing but its arguments, so that the tests can call it directly.
func validateSidecarSet(set *sidecarsv1.SidecarSet, podErrs field.ErrorList) (admission.Warnings, error) {
	spec := field.NewPath("spec")
	errs := validateSpec(&set.Spec, spec)
	named := sets.New[string]()
	for _, err := range errs {
		named.Insert(err.Field)
	}
	for _, err := range podErrs {
		if !named.Has(err.Field) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(sidecarsv1.GroupVersion.WithKind("SidecarSet").GroupKind(), set.Name, errs)
	}
	return warningsFor(&set.Spec, spec), nil
}

// validateSpec returns the problems of every field of spec, each with its path.
func validateSpec(spec *sidecarsv1.SidecarSetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch selector := spec.Selector; {
	case selector == nil:
		errs = append(errs, field.Required(path.Child("selector"), "the labels of the pods to give the sidecars"))
	case len(selector.MatchLabels) == 0 && len(selector.MatchExpressions) == 0:
		// As OpenKruise's SidecarSet: one forgotten line would give a sidecar to every pod
		// of the cluster, the CNI's, cert-manager's and every add-on's.
		errs = append(errs, field.Invalid(path.Child("selector"), "{}",
			"an empty selector would select every pod of every namespace the webhook sees: name the pods by a label"))
	default:
		errs = append(errs, validateSelector(selector, path.Child("selector"))...)
	}
	if spec.NamespaceSelector != nil {
		errs = append(errs, validateSelector(spec.NamespaceSelector, path.Child("namespaceSelector"))...)
	}
	errs = append(errs, validateVolumes(spec.Volumes, path.Child("volumes"))...)
	errs = append(errs, validateContainers(spec.Containers, path.Child("containers"))...)
	return errs
}

// validateSelector checks a label selector as the API server checks a Deployment's:
// keys and values that labels can have, operators that exist, values where the operator
// needs them.
func validateSelector(selector *metav1.LabelSelector, path *field.Path) field.ErrorList {
	return metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, path)
}

// validateContainers requires at least one sidecar, each valid on its own, and names
// unique within the SidecarSet. A name that clashes with the pod's own containers can
// only be found when a pod is created: the pod webhook skips that sidecar then.
func validateContainers(containers []corev1.Container, path *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(path, "a SidecarSet adds at least one container")}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	for i := range containers {
		errs = append(errs, validateContainer(&containers[i], path.Index(i))...)
		if name := containers[i].Name; name != "" {
			if seen.Has(name) {
				errs = append(errs, field.Duplicate(path.Index(i).Child("name"), name))
			}
			seen.Insert(name)
		}
	}
	return errs
}

// validateContainer checks what of one sidecar the API server would refuse in a pod, or
// what would make it fail there: a name, an image, mounts with a volume, a path of their
// own and not the reserved one, no host port, and no restartPolicy but Always (every
// sidecar is injected as a native sidecar, which restarts Always). The CRD's schema has
// checked the types.
// The pod webhook calls it too, and skips a sidecar it refuses: a SidecarSet stored
// while this webhook was not installed must not make pods invalid.
func validateContainer(c *corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateName(c.Name, path.Child("name"))...)
	if strings.TrimSpace(c.Image) == "" {
		errs = append(errs, field.Required(path.Child("image"), "a sidecar's image"))
	}
	mountPaths := sets.New[string]()
	for j, mount := range c.VolumeMounts {
		mountPath := path.Child("volumeMounts").Index(j)
		if mount.Name == "" {
			errs = append(errs, field.Required(mountPath.Child("name"), "the volume to mount"))
		}
		switch {
		case mount.MountPath == "":
			errs = append(errs, field.Required(mountPath.Child("mountPath"), ""))
		case mountPaths.Has(mount.MountPath):
			errs = append(errs, field.Duplicate(mountPath.Child("mountPath"), mount.MountPath))
		case strings.TrimSuffix(mount.MountPath, "/") == ReservedMountPath:
			errs = append(errs, field.Forbidden(mountPath.Child("mountPath"),
				"the API server mounts the service account token there"))
		}
		mountPaths.Insert(mount.MountPath)
	}
	if c.RestartPolicy != nil && *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), *c.RestartPolicy,
			[]corev1.ContainerRestartPolicy{corev1.ContainerRestartPolicyAlways}))
	}
	for j, port := range c.Ports {
		if port.HostPort != 0 {
			errs = append(errs, field.Forbidden(path.Child("ports").Index(j).Child("hostPort"),
				"a sidecar takes no host port: two selected pods could never run on one node"))
		}
	}
	return errs
}

// validateVolumes requires valid names, unique within the SidecarSet, and none of the
// names the API server gives pods itself.
func validateVolumes(volumes []corev1.Volume, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i := range volumes {
		errs = append(errs, validateVolume(&volumes[i], path.Index(i))...)
		if name := volumes[i].Name; name != "" {
			if seen.Has(name) {
				errs = append(errs, field.Duplicate(path.Index(i).Child("name"), name))
			}
			seen.Insert(name)
		}
	}
	return errs
}

// validateVolume checks one volume's name: a DNS label that the service account token's
// volume cannot have. Its source is the CRD schema's to check.
func validateVolume(v *corev1.Volume, path *field.Path) field.ErrorList {
	if errs := validateName(v.Name, path.Child("name")); len(errs) > 0 {
		return errs
	}
	if strings.HasPrefix(v.Name, ReservedVolumePrefix) {
		return field.ErrorList{field.Forbidden(path.Child("name"),
			fmt.Sprintf("names starting with %q are the API server's, for the service account token", ReservedVolumePrefix))}
	}
	return nil
}

// validateName requires a container's or volume's name: a DNS label, as in a pod.
func validateName(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	for _, msg := range content.IsDNS1123Label(name) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

// warningsFor warns about what is allowed but easy to get wrong: a mount of a volume the
// SidecarSet does not bring, which only pods with a volume of that name can take.
func warningsFor(spec *sidecarsv1.SidecarSetSpec, path *field.Path) admission.Warnings {
	var warnings admission.Warnings
	own := sets.New[string]()
	for _, v := range spec.Volumes {
		own.Insert(v.Name)
	}
	for i, c := range spec.Containers {
		for j, mount := range c.VolumeMounts {
			if !own.Has(mount.Name) {
				warnings = append(warnings, fmt.Sprintf("%s: %q is no volume of this SidecarSet: only pods that have a volume "+
					"of that name get the sidecar %q", path.Child("containers").Index(i).Child("volumeMounts").Index(j).Child("name"),
					mount.Name, c.Name))
			}
		}
	}
	return warnings
}
