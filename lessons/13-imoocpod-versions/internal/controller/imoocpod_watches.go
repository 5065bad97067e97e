package controller

import (
	corev1 "k8s.io/api/core/v1"
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
