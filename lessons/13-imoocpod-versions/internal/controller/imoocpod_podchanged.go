package controller

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
)

// podChanged reports whether an update changed something the controller reads of a pod:
// its phase and deletionTimestamp (activePods), whether it is ready (the status counts,
// podsToDelete), its labels (the list selects on NameLabel) and its owner references
// (metav1.IsControlledBy, and Owns maps an event to the controlling ImoocPod through
// them).
func podChanged(oldPod, newPod *corev1.Pod) bool {
	return oldPod.Status.Phase != newPod.Status.Phase ||
		podcontrol.IsPodReady(oldPod) != podcontrol.IsPodReady(newPod) ||
		!oldPod.DeletionTimestamp.Equal(newPod.DeletionTimestamp) ||
		!maps.Equal(oldPod.Labels, newPod.Labels) ||
		!equality.Semantic.DeepEqual(oldPod.OwnerReferences, newPod.OwnerReferences)
}
