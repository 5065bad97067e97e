package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ImoocPodSpec is what the user asks for: how many copies of which pod.
type ImoocPodSpec struct {
	// Replicas is the number of pods to keep running. It is a pointer so that an explicit
	// 0 differs from "not set", which the API server defaults to 1.
	//lesson:todo(1) Validate and default the replica count.
	//lesson:todo Add validation markers so that the API server itself rejects a negative
	//lesson:todo count and anything over 1000, and defaults a missing count to 1.
	//lesson:todo See "Validation markers" in docs/lesson-01.md.
	//lesson:hint The API server can refuse a bad value before your controller ever sees it: the CRD's schema, which controller-gen writes from markers above the field.
	//lesson:hint +kubebuilder:validation:Minimum, +kubebuilder:validation:Maximum and +kubebuilder:default; make check-1 regenerates the CRD from them.
	//lesson:test TestTheAPIServerChecksTheReplicaCount
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:default=1
	//lesson:end
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`

	// Image is the container image every pod runs.
	//lesson:todo(2) Require an image, with a default.
	//lesson:todo Add markers so that an empty image is rejected and a missing one defaults
	//lesson:todo to registry.k8s.io/pause:3.10.
	//lesson:hint An empty string is a value the field has: refuse it by its length.
	//lesson:hint +kubebuilder:validation:MinLength works on strings; a string +kubebuilder:default is written in double quotes.
	//lesson:test TestTheAPIServerChecksTheImage TestTheAPIServerRefusesMalformedImoocPods
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:default="registry.k8s.io/pause:3.10"
	//lesson:end
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

func init() {
	SchemeBuilder.Register(&ImoocPod{}, &ImoocPodList{})
}
