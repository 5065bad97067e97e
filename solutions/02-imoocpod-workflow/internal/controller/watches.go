package controller

import (
	"maps"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// eventFilters returns the predicates of the ImoocPod watch and of the pod watch, or
// none when r.FilterEvents is off, which shows what they save.
//
// A predicate only decides whether an event starts a pass; a pass always reads the
// whole state again. So a filter may drop an event only when no pass could act on it
// differently: dropping too much leaves the controller blind, dropping too little costs
// a pass that finds nothing to do.
func (r *ImoocPodReconciler) eventFilters() (imoocPods, pods []predicate.Predicate) {
	if !r.FilterEvents {
		return nil, nil
	}
	return []predicate.Predicate{predicate.GenerationChangedPredicate{}},
		[]predicate.Predicate{podChangedPredicate()}
}

// podChangedPredicate passes every create, delete and generic event of a pod, and an
// update only when podChanged says it matters. Most pod updates are the kubelet's
// reports (restart counts, probe results, IP addresses); without this filter each one
// costs a pass that finds nothing to do.
func podChangedPredicate() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldPod, okOld := e.ObjectOld.(*corev1.Pod)
			newPod, okNew := e.ObjectNew.(*corev1.Pod)
			if !okOld || !okNew {
				// Not two pods: nothing to compare, so let a pass decide.
				return true
			}
			return podChanged(oldPod, newPod)
		},
	}
}

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
