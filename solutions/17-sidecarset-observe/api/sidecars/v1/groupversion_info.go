// Package v1 contains the SidecarSet API of the group sidecars.workshop.dev, version v1.
// +kubebuilder:object:generate=true
// +groupName=sidecars.workshop.dev
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "sidecars.workshop.dev", Version: "v1"}

	// SchemeBuilder registers this package's kinds with a scheme. It is apimachinery's
	// builder rather than controller-runtime's, so that a program importing this API (a
	// client, another operator) needs nothing beyond apimachinery. Its first function
	// adds the options and list types every group version shares; each types file
	// registers its own kinds.
	SchemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
		metav1.AddToGroupVersion(s, GroupVersion)
		return nil
	})

	// AddToScheme adds this package's kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
