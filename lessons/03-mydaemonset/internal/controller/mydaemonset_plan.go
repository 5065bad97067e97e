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
	// Sort the pods that mds controls (metav1.IsControlledBy; skip the others).
	// A terminating pod marks its node leaving. A pod whose node is gone, does
	// not match (nodeMatches) or has a NoExecute taint the pod does not tolerate
	// (podMayStay) goes into plan.remove. So does a pod not named
	// podName(mds.Name, node.Name), and a finished one (Succeeded or Failed);
	// both also mark the node leaving. Every other pod is its node's entry in
	// running. See "Which nodes get a pod" in docs/lesson-03.md.

	// Walk the nodes in name order, so that a pass's choices do not depend on the
	// order of the cache's list.
	// TODO(4): Walk the nodes and fill in the plan.
	// Walk the nodes that match (nodeMatches) in name order and fill in the
	// plan. A node with a running pod is desired and current; its pod is updated
	// when it runs spec.image (podImage), else outdated; the node is available
	// when the pod is ready (podcontrol.IsPodReady), else unavailable. A node
	// whose taints keep every pod off (the stay of taintsAllow) counts for
	// nothing, and so does a node without a pod that is NotReady (isNodeReady) or
	// whose taints let no new pod start (the start of taintsAllow). A leaving node is
	// desired and unavailable. Any other node is desired, unavailable and gets
	// a pod (plan.create). Last, outdatedPodsToDelete picks plan.replace. See
	// "Which nodes get a pod" and "The rolling budget" in docs/lesson-03.md.
	_, _ = running, leaving
	return plan
}

// nodeMatches reports whether a pod of mds belongs on node: the node carries every label
// of spec.nodeSelector and is not cordoned (spec.unschedulable). Whether the node is
// Ready decides only whether a pod is created there; a NotReady node keeps its pod.
func nodeMatches(mds *appsv1.MyDaemonSet, node *corev1.Node) bool {
	// TODO(2): Decide whether a pod belongs on a node.
	// Return true when the node is not cordoned and its labels match
	// spec.nodeSelector (an empty selector matches every node). See "Which nodes
	// get a pod" in docs/lesson-03.md.
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
	// Return "<mds>-<node>". When that is longer than maxPodNameLength, cut it
	// and end it with "-" and 10 hex digits of a SHA-256 of mds+"/"+node, so that
	// it stays a valid, unique name. See "Deterministic names instead of create expectations" in
	// docs/lesson-03.md.
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
	// Return every outdated pod that is not ready, and, while unavailable is
	// below maxUnavailable, as many ready ones (in order) as the difference
	// allows. See "The rolling budget" in docs/lesson-03.md.
	return nil
}
