// Package v1 contains the workshop's nodes.workshop.dev/v1 API: NodePool, a group of
// nodes that share labels, taints and a RuntimeClass.
// +kubebuilder:object:generate=true
// +groupName=nodes.workshop.dev
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of every kind in this package.
	GroupVersion = schema.GroupVersion{Group: "nodes.workshop.dev", Version: "v1"}

	// SchemeBuilder registers this package's kinds with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds this package's kinds to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
