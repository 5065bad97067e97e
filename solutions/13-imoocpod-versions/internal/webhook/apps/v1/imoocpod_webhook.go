// Package v1 serves the conversions of ImoocPod v1 to and from v2, the stored version,
// and checks what a v1 write says that v1's schema cannot.
package v1

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v1"
)

// SetupImoocPodWebhookWithManager serves the conversion webhook of ImoocPod on the
// manager's webhook server, at /convert, and v1's validating webhook. The API server
// calls /convert whenever a client reads or writes an ImoocPod in a version other than
// the stored one: a v1 client, and every read of an object stored before v2 was.
func SetupImoocPodWebhookWithManager(mgr ctrl.Manager) error {
	// Registered apart from the builder below: any builder of ImoocPod serves /convert
	// too, which is the task.
	mgr.GetWebhookServer().Register(validatePath, admission.WithValidator[*appsv1.ImoocPod](mgr.GetScheme(), ImoocPodV1Validator{}))
	return ctrl.NewWebhookManagedBy(mgr, &appsv1.ImoocPod{}).Complete()
}

// validatePath is where the ValidatingWebhookConfiguration sends v1 writes (the marker
// below).
const validatePath = "/validate-apps-workshop-dev-v1-imoocpod"

// A v1 write carries v2's template in the apps.workshop.dev/v2-template annotation, a
// string that neither v1's schema nor v2's reads: the API server validates a write in the
// version of the request, then converts it to v2 and stores it unchecked. This webhook
// refuses what v2's schema would. Only v1 writes: matchPolicy=Exact keeps v2 writes,
// which v2's schema checks, from being converted to v1 to come here too.
// +kubebuilder:webhook:path=/validate-apps-workshop-dev-v1-imoocpod,mutating=false,failurePolicy=fail,sideEffects=None,matchPolicy=Exact,groups=apps.workshop.dev,resources=imoocpods,verbs=create;update,versions=v1,name=vimoocpod-v1.kb.io,admissionReviewVersions=v1

// ImoocPodV1Validator refuses a v1 ImoocPod whose TemplateAnnotation holds no template
// v2 accepts, naming the field. A conversion cannot refuse it: it runs on reads too, and
// must read every object already stored (it ignores such an annotation).
type ImoocPodV1Validator struct{}

// ValidateCreate checks the TemplateAnnotation of a new ImoocPod.
func (ImoocPodV1Validator) ValidateCreate(_ context.Context, ip *appsv1.ImoocPod) (admission.Warnings, error) {
	return nil, validateTemplateAnnotation(ip)
}

// ValidateUpdate checks the TemplateAnnotation of an ImoocPod that changes it. An
// annotation the update leaves as it was is let through, as the API server lets a CRD's
// unchanged invalid values through (validation ratcheting): an ImoocPod stored before
// this webhook existed can still be scaled, labelled or have a finalizer removed in v1.
// The conversion ignores that annotation, and the controller reports it.
func (ImoocPodV1Validator) ValidateUpdate(_ context.Context, old, ip *appsv1.ImoocPod) (admission.Warnings, error) {
	saved, ok := ip.Annotations[appsv1.TemplateAnnotation]
	if before, had := old.Annotations[appsv1.TemplateAnnotation]; ok && had && before == saved {
		return nil, nil
	}
	return nil, validateTemplateAnnotation(ip)
}

// ValidateDelete allows every delete: the webhook is not registered for deletes.
func (ImoocPodV1Validator) ValidateDelete(context.Context, *appsv1.ImoocPod) (admission.Warnings, error) {
	return nil, nil
}

// validateTemplateAnnotation returns an Invalid error naming each field of ip's
// TemplateAnnotation that v2's schema refuses, or nil.
func validateTemplateAnnotation(ip *appsv1.ImoocPod) error {
	saved, ok := ip.Annotations[appsv1.TemplateAnnotation]
	if !ok {
		return nil
	}
	if _, errs := appsv1.ParseTemplateAnnotation(saved); len(errs) > 0 {
		return apierrors.NewInvalid(appsv1.GroupVersion.WithKind("ImoocPod").GroupKind(), ip.Name, errs)
	}
	return nil
}

var _ admission.Validator[*appsv1.ImoocPod] = ImoocPodV1Validator{}
