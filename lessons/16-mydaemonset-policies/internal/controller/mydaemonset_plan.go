package controller

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
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
	nodesByName := make(map[string]*corev1.Node, len(nodes))
	for i := range nodes {
		nodesByName[nodes[i].Name] = &nodes[i]
	}
	for i := range pods {
		pod := &pods[i]
		if !metav1.IsControlledBy(pod, mds) {
			continue
		}
		if !pod.DeletionTimestamp.IsZero() {
			leaving.Insert(pod.Spec.NodeName)
			continue
		}
		node := nodesByName[pod.Spec.NodeName]
		switch {
		case node == nil || !nodeMatches(mds, node):
			plan.remove = append(plan.remove, pod)
		case !podMayStay(mds, node):
			// The taint eviction controller deletes it anyway; the node counts for
			// nothing until the taint goes or is tolerated.
			plan.remove = append(plan.remove, pod)
		case pod.Name != podName(mds.Name, node.Name):
			// Not the name this controller gives: a copy someone else made, which would
			// be a second pod on the node.
			plan.remove = append(plan.remove, pod)
			leaving.Insert(node.Name)
		case pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed:
			// A finished pod never runs again, and it holds the name its replacement
			// needs.
			plan.remove = append(plan.remove, pod)
			leaving.Insert(node.Name)
		default:
			running[node.Name] = pod
		}
	}

	// Walk the nodes in name order, so that a pass's choices do not depend on the
	// order of the cache's list.
	sorted := make([]*corev1.Node, 0, len(nodes))
	for i := range nodes {
		sorted = append(sorted, &nodes[i])
	}
	slices.SortFunc(sorted, func(a, b *corev1.Node) int { return strings.Compare(a.Name, b.Name) })

	// unavailable counts the nodes that should run a pod and have no ready one.
	unavailable := 0
	var outdated []*corev1.Pod
	for _, node := range sorted {
		if !nodeMatches(mds, node) {
			continue
		}
		start, stay := taintsAllow(mds, node)
		if !stay {
			continue
		}
		pod := running[node.Name]
		switch {
		case pod != nil:
			// A pod stays on a node that went NotReady, as a DaemonSet's does: a
			// network blip should not restart every daemon of the node.
			plan.desired++
			plan.current++
			if podImage(pod) == mds.Spec.Image {
				plan.updated++
			} else {
				outdated = append(outdated, pod)
			}
			if podcontrol.IsPodReady(pod) {
				plan.available++
			} else {
				unavailable++
			}
		case !isNodeReady(node):
			// A NotReady node without a pod gets one once it is Ready.
		case !start:
			// An untolerated NoSchedule taint keeps a new pod off, as the scheduler
			// would; a pod that ran before the taint came stays (the first case).
		case leaving.Has(node.Name):
			plan.desired++
			unavailable++
		default:
			plan.desired++
			unavailable++
			plan.create = append(plan.create, node)
		}
	}
	plan.replace = outdatedPodsToDelete(outdated, unavailable)
	return plan
}

// nodeMatches reports whether a pod of mds belongs on node: the node carries every label
// of spec.nodeSelector and is not cordoned (spec.unschedulable). Whether the node is
// Ready decides only whether a pod is created there; a NotReady node keeps its pod.
func nodeMatches(mds *appsv1.MyDaemonSet, node *corev1.Node) bool {
	return !node.Spec.Unschedulable &&
		labels.SelectorFromSet(mds.Spec.NodeSelector).Matches(labels.Set(node.Labels))
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
	name := mds + "-" + node
	if len(name) <= maxPodNameLength {
		return name
	}
	// "/" appears in neither name, so the hash's input tells every pair of names apart.
	sum := sha256.Sum256([]byte(mds + "/" + node))
	suffix := hex.EncodeToString(sum[:])[:10]
	// A name must end in a letter or digit, so the cut drops the separators it ends in.
	prefix := strings.TrimRight(name[:maxPodNameLength-len(suffix)-1], "-.")
	return prefix + "-" + suffix
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
	var victims, ready []*corev1.Pod
	for _, pod := range outdated {
		if podcontrol.IsPodReady(pod) {
			ready = append(ready, pod)
		} else {
			victims = append(victims, pod)
		}
	}
	budget := max(0, maxUnavailable-unavailable)
	return append(victims, ready[:min(budget, len(ready))]...)
}
