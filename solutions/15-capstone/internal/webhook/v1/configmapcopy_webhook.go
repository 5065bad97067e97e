/*
Copyright 2026.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	copiesv1 "github.com/kube-workshop/operator-workshop/solutions/15-capstone/api/v1"
)

// SetupConfigMapCopyWebhookWithManager registers the ConfigMapCopy webhooks with the
// manager. The schema (api/v1) states what it can: required fields, patterns, an empty
// selector, immutable fields. The webhooks hold the two rules it cannot: a default taken
// from another field, and a selector that must parse as Kubernetes parses it.
func SetupConfigMapCopyWebhookWithManager(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &copiesv1.ConfigMapCopy{}).
		WithValidator(&ConfigMapCopyValidator{}).
		WithDefaulter(&ConfigMapCopyDefaulter{}).
		Complete()
}

// +kubebuilder:webhook:path=/mutate-copies-workshop-dev-v1-configmapcopy,mutating=true,failurePolicy=fail,sideEffects=None,groups=copies.workshop.dev,resources=configmapcopies,verbs=create;update,versions=v1,name=mconfigmapcopy-v1.kb.io,admissionReviewVersions=v1

// ConfigMapCopyDefaulter gives the copies the source's name when the spec names none.
// +kubebuilder:object:generate=false
type ConfigMapCopyDefaulter struct{}

// Default sets spec.targetName to spec.source.name when it is empty. A CRD default is a
// constant: it cannot copy another field.
func (d *ConfigMapCopyDefaulter) Default(_ context.Context, obj *copiesv1.ConfigMapCopy) error {
	if obj.Spec.TargetName == "" {
		obj.Spec.TargetName = obj.Spec.Source.Name
	}
	return nil
}

// +kubebuilder:webhook:path=/validate-copies-workshop-dev-v1-configmapcopy,mutating=false,failurePolicy=fail,sideEffects=None,groups=copies.workshop.dev,resources=configmapcopies,verbs=create;update,versions=v1,name=vconfigmapcopy-v1.kb.io,admissionReviewVersions=v1

// ConfigMapCopyValidator refuses a selector that Kubernetes could not use.
// +kubebuilder:object:generate=false
type ConfigMapCopyValidator struct{}

// ValidateCreate refuses a ConfigMapCopy whose selector does not parse.
func (v *ConfigMapCopyValidator) ValidateCreate(_ context.Context, obj *copiesv1.ConfigMapCopy) (admission.Warnings, error) {
	return nil, validate(obj)
}

// ValidateUpdate refuses a change that leaves a selector that does not parse.
func (v *ConfigMapCopyValidator) ValidateUpdate(_ context.Context, _, newObj *copiesv1.ConfigMapCopy) (admission.Warnings, error) {
	return nil, validate(newObj)
}

// ValidateDelete lets every deletion through: the finalizer removes the copies.
func (v *ConfigMapCopyValidator) ValidateDelete(_ context.Context, _ *copiesv1.ConfigMapCopy) (admission.Warnings, error) {
	return nil, nil
}

// validate checks spec.namespaceSelector as the API server's own list calls would read
// it: an operator In with no values, or a label value with a space, passes the schema
// and would fail every pass of the controller instead.
func validate(obj *copiesv1.ConfigMapCopy) error {
	path := field.NewPath("spec", "namespaceSelector")
	if _, err := metav1.LabelSelectorAsSelector(&obj.Spec.NamespaceSelector); err != nil {
		errs := field.ErrorList{field.Invalid(path, obj.Spec.NamespaceSelector, "not a valid label selector: "+err.Error())}
		return apierrors.NewInvalid(copiesv1.GroupVersion.WithKind("ConfigMapCopy").GroupKind(), obj.Name, errs)
	}
	return nil
}
