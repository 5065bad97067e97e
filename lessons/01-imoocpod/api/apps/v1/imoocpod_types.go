package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ImoocPodSpec is what the user asks for: how many copies of which pod.
type ImoocPodSpec struct {
	// Replicas is the number of pods to keep running. It is a pointer so that an explicit
	// 0 differs from "not set", which the API server defaults to 1.
	// TODO(1): Validate and default the replica count.
	// The API server itself refuses a negative replica count and one over 1000 (0 is
	// allowed), and fills in 1 when the count is missing: no bad count reaches the
	// controller. See "Validation markers" in docs/lesson-01.md.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Image is the container image every pod runs.
	// TODO(2): Require an image, with a default.
	// The API server refuses an empty image, and fills in registry.k8s.io/pause:3.10 when
	// the image is missing. See "Validation markers" in docs/lesson-01.md.
	// +optional
	Image string `json:"image,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=imp

// ImoocPod keeps a number of identical pods running, like a small ReplicaSet.
//
// Its name becomes the value of a label on every pod it makes, and a label value has at
// most 63 characters: the API server refuses a longer name, which no pod could carry.
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 63",message="the name is the value of a label on every pod: at most 63 characters"
type ImoocPod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ImoocPodSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// ImoocPodList is a list of ImoocPods.
type ImoocPodList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ImoocPod `json:"items"`
}
