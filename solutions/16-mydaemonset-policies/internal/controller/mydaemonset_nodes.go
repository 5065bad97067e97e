package controller

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// mydaemonsetsForNode maps an event of a node, an object no MyDaemonSet owns, to the
// MyDaemonSets it concerns: those whose node selector matches the node's labels, and
// those that have a pod on the node.
//
// For an update, handler.EnqueueRequestsFromMapFunc calls it with the old node and with
// the new one: a node whose labels stop matching a selector still reaches that
// MyDaemonSet through its old labels, and the pass removes the pod. A delete event
// carries the node's last state. The pods cover a MyDaemonSet whose selector changed
// since it placed its pod, and a delete whose last state the informer missed.
func (r *MyDaemonSetReconciler) mydaemonsetsForNode(ctx context.Context, obj client.Object) []reconcile.Request {
	log := log.FromContext(ctx).WithValues("node", obj.GetName())
	owners := sets.New[types.NamespacedName]()

	var all appsv1.MyDaemonSetList
	if err := r.List(ctx, &all); err != nil {
		// A map function cannot return an error. A read from the cache fails only when
		// the cache is broken, and then the next event tries again.
		log.Error(err, "Listing the MyDaemonSets a node event concerns")
		return nil
	}
	nodeLabels := labels.Set(obj.GetLabels())
	for _, mds := range all.Items {
		if labels.SelectorFromSet(mds.Spec.NodeSelector).Matches(nodeLabels) {
			owners.Insert(client.ObjectKeyFromObject(&mds))
		}
	}

	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.MatchingFields{podNodeNameField: obj.GetName()}); err != nil {
		log.Error(err, "Listing the pods of a node")
		return nil
	}
	for _, pod := range pods.Items {
		ref := metav1.GetControllerOf(&pod)
		if ref == nil || ref.Kind != "MyDaemonSet" {
			continue
		}
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != appsv1.GroupVersion.Group {
			continue
		}
		owners.Insert(types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name})
	}

	requests := make([]reconcile.Request, 0, owners.Len())
	for key := range owners {
		requests = append(requests, reconcile.Request{NamespacedName: key})
	}
	return requests
}

// nodeChangedPredicate passes every create, delete and generic event of a node, and an
// update only when nodeChanged says it matters. A kubelet reports on its node every few
// seconds to minutes (heartbeat times, images, resources); without this filter each
// report would start a pass of every MyDaemonSet on the node.
func nodeChangedPredicate() predicate.Predicate {
	return updatesThat(nodeChanged)
}

// nodeChanged reports whether an update changed something the controller reads of a
// node: its labels (the node selectors), spec.unschedulable (cordon), spec.taints
// (taintsAllow) and whether it is Ready.
func nodeChanged(oldNode, newNode *corev1.Node) bool {
	return !maps.Equal(oldNode.Labels, newNode.Labels) ||
		oldNode.Spec.Unschedulable != newNode.Spec.Unschedulable ||
		!equality.Semantic.DeepEqual(oldNode.Spec.Taints, newNode.Spec.Taints) ||
		isNodeReady(oldNode) != isNodeReady(newNode)
}

// daemonPodChangedPredicate passes every create, delete and generic event of a pod, and
// an update only when daemonPodChanged says it matters. Most pod updates are the
// kubelet's reports (restart counts, probe results, IP addresses); without this filter
// each one would cost a pass that finds nothing to do.
func daemonPodChangedPredicate() predicate.Predicate {
	return updatesThat(daemonPodChanged)
}

// updatesThat passes every create, delete and generic event, and an update of two T
// only when changed reports a change. An update of another kind of object passes: the
// filter knows nothing of it.
func updatesThat[T client.Object](changed func(oldObj, newObj T) bool) predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldObj, okOld := e.ObjectOld.(T)
			newObj, okNew := e.ObjectNew.(T)
			if !okOld || !okNew {
				return true
			}
			return changed(oldObj, newObj)
		},
	}
}

// daemonPodChanged reports whether an update changed something the controller reads of
// a pod: its phase and deletionTimestamp, whether it is ready, its labels (the list
// selects on MyDaemonSetLabel), its owner references (metav1.IsControlledBy, and Owns
// maps an event to the controlling MyDaemonSet through them) and its image: a pod whose
// image someone changed in place must be replaced by one that runs spec.image.
func daemonPodChanged(oldPod, newPod *corev1.Pod) bool {
	return oldPod.Status.Phase != newPod.Status.Phase ||
		podcontrol.IsPodReady(oldPod) != podcontrol.IsPodReady(newPod) ||
		!oldPod.DeletionTimestamp.Equal(newPod.DeletionTimestamp) ||
		!maps.Equal(oldPod.Labels, newPod.Labels) ||
		!equality.Semantic.DeepEqual(oldPod.OwnerReferences, newPod.OwnerReferences) ||
		podImage(oldPod) != podImage(newPod)
}
