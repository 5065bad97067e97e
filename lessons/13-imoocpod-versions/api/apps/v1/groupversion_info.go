// Package v1 contains the workshop's apps.workshop.dev/v1 API.
// +kubebuilder:object:generate=true
// +groupName=apps.workshop.dev
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "apps.workshop.dev", Version: "v1"}

	// SchemeBuilder registers this package's kinds with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds this package's kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// init registers the kinds of this package here rather than beside their types, so that
// the types file serves a client-go program too (lesson 12), with a builder of its own.
func init() {
	SchemeBuilder.Register(&ImoocPod{}, &ImoocPodList{})
}
