package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// taintID is what tells a node's taints apart: the node accepts dedicated=db:NoSchedule
// and dedicated=db:NoExecute together, never two dedicated:NoSchedule.
func taintID(t corev1.Taint) string { return t.Key + ":" + string(t.Effect) }

// sameTaint reports whether a and b are one taint with one value.
func sameTaint(a, b corev1.Taint) bool { return taintID(a) == taintID(b) && a.Value == b.Value }

// setPoolTaints removes from node the taints of held that want no longer lists, gives
// every held taint that want lists want's value, and adds at the end the taints of want
// the node lacks. A taint is known by its key and effect (taintID): any other taint,
// one of want's key and effect with someone else's value included, keeps its place and
// its value. It returns the taints it set.
func setPoolTaints(node *corev1.Node, held, want []corev1.Taint) []corev1.Taint {
	ours := sets.New[string]()
	for _, t := range held {
		ours.Insert(taintID(t))
	}
	wanted := map[string]corev1.Taint{}
	for _, t := range want {
		wanted[taintID(t)] = t
	}
	var taints, given []corev1.Taint
	for _, t := range node.Spec.Taints {
		id := taintID(t)
		w, wants := wanted[id]
		delete(wanted, id)
		if ours.Has(id) {
			if !wants {
				continue
			}
			t.Value = w.Value
			given = append(given, t)
		}
		taints = append(taints, t)
	}
	for _, t := range want {
		if _, missing := wanted[taintID(t)]; missing {
			taints = append(taints, t)
			given = append(given, t)
		}
	}
	node.Spec.Taints = taints
	return given
}
