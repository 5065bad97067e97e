package controller

import (
	corev1 "k8s.io/api/core/v1"
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
	// TODO(2): Set the pool's taints on a node.
	// A taint the pool holds (in held) goes when want no longer lists it, and
	// takes want's value when it does; every other taint stays as it is, where it
	// is, even one with want's key and effect but someone else's value. The taints
	// of want the node lacks come last. Return the taints you set. See
	// "Remembering what the pool gave" in docs/lesson-05.md.
	return nil
}
