// Package v2 contains the workshop's apps.workshop.dev/v2 API: the version the API server
// stores, and the hub every other version converts through.
// +kubebuilder:object:generate=true
// +groupName=apps.workshop.dev
package v2

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "apps.workshop.dev", Version: "v2"}
	// SchemeBuilder registers this package's kinds with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds this package's kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func init() {
	SchemeBuilder.Register(&ImoocPod{}, &ImoocPodList{})
}
