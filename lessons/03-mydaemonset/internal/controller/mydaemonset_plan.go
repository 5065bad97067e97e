package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/03-mydaemonset/api/apps/v1"
)

// maxUnavailable is the rolling budget of an image change: how many nodes that should
// run a pod may be without a ready one while old pods are replaced. 1 is the default of
// a DaemonSet's RollingUpdate strategy.
const maxUnavailable = 1

// maxPodNameLength keeps pod names within 63 characters. The API server takes up to 253,
// but the kubelet cuts a pod's hostname, which defaults to its name, at 63: two long
// names that differ only after that would give two pods the same hostname.
const maxPodNameLength = 63

// daemonPlan is what one pass of the MyDaemonSet controller found and what it should do
// about it. planPods computes it without side effects, so that tests can check every
// decision without a cluster.
type daemonPlan struct {
	// desired, current, updated and available are the counts of the status.
	desired, current, updated, available int32

	// create holds the nodes that should run a pod and have none.
	create []*corev1.Node
	// remove holds the pods that must go whatever the rolling budget says: pods on nodes
	// that are gone, cordoned or no longer match, finished pods, and pods that are not
	// the one pod their node may have.
	remove []*corev1.Pod
	// replace holds the pods that run an old image and that the rolling budget lets this
	// pass delete. Their nodes get a new pod once the old one is gone.
	replace []*corev1.Pod
}

// planPods compares the nodes with the pods of mds and decides which pods to create and
// which to delete. nodes and pods come from the cache and are not changed.
func planPods(mds *appsv1.MyDaemonSet, nodes []corev1.Node, pods []corev1.Pod) daemonPlan {
	var plan daemonPlan
	// running holds the one active pod of each node, by node name.
	running := map[string]*corev1.Pod{}
	// leaving holds the nodes with a pod that is terminating or removed by this pass.
	// They get no new pod until it is gone: two pods of one MyDaemonSet must never share
	// a node, and the new pod needs the old one's name.
	leaving := sets.New[string]()

	// Sort the pods into the one active pod of each node and the pods on their way out.
	// A pod of someone else, even with our label, is never touched.
	// TODO(3): Sort the pods into running and to remove.
	// Only the pods mds controls count. running gets each node's one active pod;
	// plan.remove the pods that must go (their node is gone, does not match, or has a
	// NoExecute taint they do not tolerate; a copy not named after its node; a finished
	// pod); leaving the nodes whose pod is terminating, a copy or finished. See "Which
	// nodes get a pod" in docs/lesson-03.md.

	// Walk the nodes in name order, so that a pass's choices do not depend on the
	// order of the cache's list.
	// TODO(4): Walk the nodes and fill in the plan.
	// Walk the matching nodes in name order and fill in the counts and plan.create by
	// the table of nodes; a desired node without a ready pod is unavailable. Last,
	// plan.replace gets the outdated pods the rolling budget lets go. See "Which nodes
	// get a pod" and "The rolling budget" in docs/lesson-03.md.
	_, _ = running, leaving
	return plan
}

// nodeMatches reports whether a pod of mds belongs on node: the node carries every label
// of spec.nodeSelector and is not cordoned (spec.unschedulable). Whether the node is
// Ready decides only whether a pod is created there; a NotReady node keeps its pod.
func nodeMatches(mds *appsv1.MyDaemonSet, node *corev1.Node) bool {
	// TODO(2): Decide whether a pod belongs on a node.
	// True when the node carries every label of spec.nodeSelector (an empty selector
	// matches every node) and is not cordoned. Readiness does not count here: a NotReady
	// node keeps its pod. See "Which nodes get a pod" in docs/lesson-03.md.
	return false
}

// isNodeReady reports whether the node's kubelet says it is Ready.
func isNodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podName is the name of the pod of the MyDaemonSet mds on node: the same on every pass,
// so that the API server refuses a second create (AlreadyExists) however stale the
// cache is. A name longer than maxPodNameLength is cut and ends in a hash of both names,
// which keeps long names apart.
func podName(mds, node string) string {
	// TODO(1): Name each pod after its node.
	// A pod's name is "<mds>-<node>". One longer than maxPodNameLength is cut and ends
	// in "-" and the first 10 hex digits of the SHA-256 of mds+"/"+node, so that long
	// names that differ only after the cut stay apart. See "Deterministic names instead
	// of create expectations" in docs/lesson-03.md.
	return ""
}

// podImage is the image of the pod's container, the one newDaemonPod creates.
func podImage(pod *corev1.Pod) string {
	if len(pod.Spec.Containers) == 0 {
		return ""
	}
	return pod.Spec.Containers[0].Image
}

// outdatedPodsToDelete applies the rolling budget to the pods that run an old image
// (outdated, in the order to replace them). unavailable is the number of nodes that
// should run a pod and have no ready one, outdated pods among them.
//
// An outdated pod that is not ready serves nothing: deleting it costs nothing, so they
// all go. A ready one goes only while fewer than maxUnavailable nodes are unavailable,
// so that at most maxUnavailable nodes are without a ready pod because of the change.
func outdatedPodsToDelete(outdated []*corev1.Pod, unavailable int) []*corev1.Pod {
	// TODO(5): Pick the outdated pods the rolling budget lets go.
	// Every outdated pod that is not ready goes. Ready ones go, in the given order, only
	// as far as maxUnavailable minus unavailable allows, none when that is zero or less.
	// See "The rolling budget" in docs/lesson-03.md.
	return nil
}
