package controller

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// A pod bound through spec.nodeName never meets the scheduler, so nothing else checks
// a node's taints for it: the controller must, as the DaemonSet controller does
// (nodeShouldRunDaemonPod in k8s.io/kubernetes pkg/controller/daemon). The taints of a
// node decide two things:
//
//   - a NoSchedule or NoExecute taint the pods do not tolerate means no new pod;
//   - a NoExecute taint they do not tolerate means no pod at all. The taint eviction
//     controller deletes such a pod; creating it again would fight it forever.
//
// A pod already on a node with an untolerated NoSchedule taint stays, as a pod the
// scheduler placed before the taint came would. PreferNoSchedule is only a preference
// of the scheduler: it never keeps a pod away.

// taintsAllow reports whether the taints of node let a pod of mds start there (start)
// and, when one runs there already, stay (stay).
func taintsAllow(mds *appsv1.MyDaemonSet, node *corev1.Node) (start, stay bool) {
	tolerations := daemonTolerations(mds)
	start, stay = true, true
	for i := range node.Spec.Taints {
		taint := &node.Spec.Taints[i]
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if tolerated(tolerations, taint) {
			continue
		}
		start = false
		if taint.Effect == corev1.TaintEffectNoExecute {
			stay = false
		}
	}
	return start, stay
}

// podMayStay reports whether a pod of mds may stay on node: whether the pods tolerate
// every NoExecute taint of the node.
func podMayStay(mds *appsv1.MyDaemonSet, node *corev1.Node) bool {
	_, stay := taintsAllow(mds, node)
	return stay
}

// tolerated reports whether one of tolerations tolerates taint. The schema admits no Lt
// or Gt operator (they are behind a feature gate), so comparisons stay off.
func tolerated(tolerations []corev1.Toleration, taint *corev1.Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(log.Log, taint, false) {
			return true
		}
	}
	return false
}
