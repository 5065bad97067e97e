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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SourceRef names the ConfigMap whose data is copied.
type SourceRef struct {
	// namespace of the source ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`

	// name of the source ConfigMap.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ConfigMapCopySpec says which ConfigMap to copy and into which namespaces.
// The source and the copies' name never change: a copy made under one name would be
// left behind, or someone else's ConfigMap taken for a copy, under another.
// +kubebuilder:validation:XValidation:rule="self.source == oldSelf.source",message="source is immutable: create another ConfigMapCopy"
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.targetName) || (has(self.targetName) && self.targetName == oldSelf.targetName)",message="targetName is immutable: create another ConfigMapCopy"
type ConfigMapCopySpec struct {
	// source is the ConfigMap whose data and binaryData are copied.
	// +required
	Source SourceRef `json:"source"`

	// namespaceSelector picks the namespaces that get a copy. It may not be empty:
	// an empty selector would pick every namespace of the cluster.
	// +required
	// +kubebuilder:validation:XValidation:rule="(has(self.matchLabels) && size(self.matchLabels) > 0) || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",message="an empty selector picks every namespace: give matchLabels or matchExpressions"
	NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`

	// targetName is the name of the copies; the webhook defaults it to source.name.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	TargetName string `json:"targetName,omitempty"`
}

// Condition types and reasons of a ConfigMapCopy.
const (
	// ConditionReady is True when every selected namespace holds a copy in line with the
	// source.
	ConditionReady = "Ready"
	// ConditionConflict is True when a selected namespace holds a ConfigMap of the copies'
	// name that this ConfigMapCopy did not create: it is left untouched.
	ConditionConflict = "Conflict"

	ReasonCopied         = "Copied"
	ReasonSourceNotFound = "SourceNotFound"
	ReasonConflict       = "Conflict"
	ReasonCopyFailed     = "CopyFailed"
	ReasonNoConflict     = "NoConflict"
)

// ConfigMapCopyStatus is what the controller observed at its last pass.
type ConfigMapCopyStatus struct {
	// observedGeneration is the spec's generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// copies is how many namespaces hold a copy in line with the source.
	// +optional
	Copies int32 `json:"copies,omitempty"`

	// conditions: Ready and Conflict.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=cmcopy
// +kubebuilder:printcolumn:name="Source",type=string,JSONPath=".spec.source.name"
// +kubebuilder:printcolumn:name="Copies",type=integer,JSONPath=".status.copies"
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=".status.conditions[?(@.type==\"Ready\")].status"
// +kubebuilder:printcolumn:name="Conflict",type=string,JSONPath=".status.conditions[?(@.type==\"Conflict\")].status"

// ConfigMapCopy copies one ConfigMap into every namespace its selector picks, and
// keeps the copies in line with it.
type ConfigMapCopy struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitzero"`

	// spec defines the desired state of ConfigMapCopy
	// +required
	Spec ConfigMapCopySpec `json:"spec"`

	// status defines the observed state of ConfigMapCopy
	// +optional
	Status ConfigMapCopyStatus `json:"status,omitzero"`
}

// +kubebuilder:object:root=true

// ConfigMapCopyList contains a list of ConfigMapCopy
type ConfigMapCopyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitzero"`
	Items           []ConfigMapCopy `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(SchemeGroupVersion, &ConfigMapCopy{}, &ConfigMapCopyList{})
		return nil
	})
}
