// Package v1 contains the workshop's apps.workshop.dev/v1 API: the ImoocPod of lesson 02,
// registered without controller-runtime.
// +kubebuilder:object:generate=true
// +groupName=apps.workshop.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "apps.workshop.dev", Version: "v1"}

	// SchemeBuilder registers this package's kinds with a scheme, the way a generated
	// clientset's register.go does (controller-runtime's scheme.Builder wraps the same
	// two calls).
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds this package's kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersion, &ImoocPod{}, &ImoocPodList{})
	metav1.AddToGroupVersion(scheme, GroupVersion)
	return nil
}
