// Package v1 holds the admission webhooks of the apps.workshop.dev/v1 kinds: the API
// server calls them, over TLS, on every create and update of a MyDaemonSet, first the
// defaulting webhook, then, after its own schema checks, the validating one.
package v1

import (
	"context"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// SetupMyDaemonSetWebhookWithManager registers both webhooks with the manager's webhook
// server, at the paths controller-runtime derives from the group, version and kind:
// the paths of the markers below.
func SetupMyDaemonSetWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &appsv1.MyDaemonSet{}).
		WithDefaulter(&MyDaemonSetCustomDefaulter{}).
		WithValidator(&MyDaemonSetCustomValidator{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-apps-workshop-dev-v1-mydaemonset,mutating=true,failurePolicy=fail,sideEffects=None,groups=apps.workshop.dev,resources=mydaemonsets,verbs=create;update,versions=v1,name=mmydaemonset-v1.kb.io,admissionReviewVersions=v1

// MyDaemonSetCustomDefaulter fills in what a user may leave out of a MyDaemonSet. It runs
// before the API server checks the object against the CRD's schema, so it must cope with
// any object, valid or not, and change only what is missing.
type MyDaemonSetCustomDefaulter struct{}

var _ admission.Defaulter[*appsv1.MyDaemonSet] = &MyDaemonSetCustomDefaulter{}

// Default sets spec.imagePullPolicy when the user has not. The API server stores the
// result, so `kubectl get -o yaml` shows the policy the pods will get, and a patch that
// leaves the field alone keeps the stored value: the default is chosen once, from the
// image of that moment.
func (d *MyDaemonSetCustomDefaulter) Default(_ context.Context, mds *appsv1.MyDaemonSet) error {
	if mds.Spec.ImagePullPolicy == "" {
		mds.Spec.ImagePullPolicy = defaultPullPolicy(mds.Spec.Image)
	}
	return nil
}

// defaultPullPolicy is the pull policy Kubernetes gives a container that has none: Always
// when the tag is latest, or missing and without a digest (the runtime then pulls
// latest), so that a node picks up a new push; IfNotPresent otherwise.
//
// An image that does not parse gets no default (""): the object is refused anyway, and
// any change would make controller-runtime send a patch built from the whole Go object.
// A missing image would come back in it as "" (spec.image has no omitempty), and the user
// would read "should be at least 1 chars long" instead of "Required value".
func defaultPullPolicy(image string) corev1.PullPolicy {
	ref, err := parseImage(image)
	switch {
	case err != nil:
		return ""
	case ref.tag == "latest", ref.tag == "" && ref.digest == "":
		return corev1.PullAlways
	default:
		return corev1.PullIfNotPresent
	}
}

// +kubebuilder:webhook:path=/validate-apps-workshop-dev-v1-mydaemonset,mutating=false,failurePolicy=fail,sideEffects=None,groups=apps.workshop.dev,resources=mydaemonsets,verbs=create;update,versions=v1,name=vmydaemonset-v1.kb.io,admissionReviewVersions=v1

// MyDaemonSetCustomValidator refuses the MyDaemonSets the controller could not run:
// images no node can pull and node selectors no node can carry. The CRD's schema has
// checked types, required fields and enums already.
type MyDaemonSetCustomValidator struct{}

var _ admission.Validator[*appsv1.MyDaemonSet] = &MyDaemonSetCustomValidator{}

// ValidateCreate checks a new MyDaemonSet.
func (v *MyDaemonSetCustomValidator) ValidateCreate(_ context.Context, mds *appsv1.MyDaemonSet) (admission.Warnings, error) {
	return validateMyDaemonSet(mds)
}

// ValidateUpdate checks a changed spec with the rules of a create: an update can bring a
// bad image as easily as a create. An update that leaves the spec alone goes through
// unchecked: a MyDaemonSet stored before these rules existed, with an image they now
// refuse, must still take a label, and lose the garbage collector's foregroundDeletion
// finalizer, or it could never be deleted; and a warning about a spec nobody touched
// would come back with every such update.
func (v *MyDaemonSetCustomValidator) ValidateUpdate(_ context.Context, oldMDS, mds *appsv1.MyDaemonSet) (admission.Warnings, error) {
	if equality.Semantic.DeepEqual(oldMDS.Spec, mds.Spec) {
		return nil, nil
	}
	return validateMyDaemonSet(mds)
}

// ValidateDelete is never called: the marker registers the webhook for create and
// update only. A delete needs no check.
func (v *MyDaemonSetCustomValidator) ValidateDelete(context.Context, *appsv1.MyDaemonSet) (admission.Warnings, error) {
	return nil, nil
}

// validateMyDaemonSet returns every problem of mds in one Invalid error, as the API
// server reports its own checks, or else the warnings for what is allowed but unwise.
// It reads nothing but mds, so that the tests and the fuzzer can call it directly.
func validateMyDaemonSet(mds *appsv1.MyDaemonSet) (admission.Warnings, error) {
	spec := field.NewPath("spec")
	if errs := validateSpec(&mds.Spec, spec); len(errs) > 0 {
		return nil, apierrors.NewInvalid(appsv1.GroupVersion.WithKind("MyDaemonSet").GroupKind(), mds.Name, errs)
	}
	return warningsFor(&mds.Spec, spec), nil
}

// validateSpec returns the problems of every field of spec, each with its path.
func validateSpec(spec *appsv1.MyDaemonSetSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateImage(spec.Image, path.Child("image"))...)
	errs = append(errs, validateNodeSelector(spec.NodeSelector, path.Child("nodeSelector"))...)
	errs = append(errs, validatePullPolicy(spec.ImagePullPolicy, path.Child("imagePullPolicy"))...)
	errs = append(errs, validateTolerations(spec.Tolerations, path.Child("tolerations"))...)
	return errs
}

// validateTolerations checks what a pod's validation would: a toleration the API server
// refuses on a pod would make every create of the controller fail, on every node. The
// CRD's rules check the operator, the effect, an empty key and tolerationSeconds
// already; this repeats them for callers without an API server (the tests and the
// fuzzer), and adds the key and the value, which must be a label key and a label value.
func validateTolerations(tolerations []corev1.Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		at := path.Index(i)
		if t.Key != "" {
			for _, msg := range content.IsLabelKey(t.Key) {
				errs = append(errs, field.Invalid(at.Child("key"), t.Key, msg))
			}
		}
		switch t.Operator {
		case "", corev1.TolerationOpEqual:
			if t.Key == "" {
				errs = append(errs, field.Invalid(at.Child("operator"), t.Operator,
					"a toleration without a key must have the operator Exists"))
			}
			for _, msg := range content.IsLabelValue(t.Value) {
				errs = append(errs, field.Invalid(at.Child("value"), t.Value, msg))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(at.Child("value"), t.Value,
					"a toleration with the operator Exists has no value"))
			}
		default:
			errs = append(errs, field.NotSupported(at.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		switch t.Effect {
		case "", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(at.Child("effect"), t.Effect, []corev1.TaintEffect{
				corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
		}
		if t.TolerationSeconds != nil {
			errs = append(errs, field.Forbidden(at.Child("tolerationSeconds"),
				"a daemon pod tolerates a taint for good or not at all"))
		}
	}
	return errs
}

// validateImage requires an image reference a container runtime can parse. Pod
// validation only asks for a non-empty string; a bad reference surfaces later, on every
// node, as a pod stuck in InvalidImageName.
func validateImage(image string, path *field.Path) field.ErrorList {
	if image == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if _, err := parseImage(image); err != nil {
		return field.ErrorList{field.Invalid(path, image, err.Error())}
	}
	return nil
}

// validateNodeSelector requires label keys and values, like a pod's node selector: a
// selector that no label can satisfy would leave the MyDaemonSet without a node forever.
// Keys are checked in sorted order, so that the message is the same on every call.
func validateNodeSelector(selector map[string]string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, key := range slices.Sorted(maps.Keys(selector)) {
		for _, msg := range content.IsLabelKey(key) {
			errs = append(errs, field.Invalid(path.Key(key), key, msg))
		}
		for _, msg := range content.IsLabelValue(selector[key]) {
			errs = append(errs, field.Invalid(path.Key(key), selector[key], msg))
		}
	}
	return errs
}

// validatePullPolicy repeats the CRD's enum. The API server checks the enum before this
// webhook is called, so this only matters to a caller without an API server: the tests
// and the fuzzer, which must not see a policy the API server would refuse accepted.
func validatePullPolicy(policy corev1.PullPolicy, path *field.Path) field.ErrorList {
	switch policy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
		return nil
	}
	return field.ErrorList{field.NotSupported(path, policy,
		[]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever})}
}

// warningsFor warns about an image that floats: tagged latest or not tagged at all, and
// without a digest. The API server lets it through and kubectl prints the warning. The
// controller replaces pods only when spec.image changes, so a new push of latest reaches
// a node only when its pod happens to be recreated, and the nodes drift apart.
func warningsFor(spec *appsv1.MyDaemonSetSpec, path *field.Path) admission.Warnings {
	ref, err := parseImage(spec.Image)
	if err != nil || !ref.floating() {
		return nil
	}
	what := "has no tag, which means latest"
	if ref.tag != "" {
		what = "is tagged latest"
	}
	return admission.Warnings{fmt.Sprintf("%s: %q %s: each node runs whatever latest was when its pod started, "+
		"and a new push replaces no pod; pin a version or a digest", path.Child("image"), spec.Image, what)}
}
