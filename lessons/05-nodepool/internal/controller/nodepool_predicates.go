package controller

import (
	"context"
	"maps"
	"strings"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/05-nodepool/api/nodes/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// poolsOfNode maps a node to the NodePools it concerns: those its membership labels name,
// and those that gave it something they must be able to take back. For an update the
// watch maps the old node and the new one, so a node that just lost its membership label
// still reaches the pool it left. A name with no NodePool behind it
// (node-role.kubernetes.io/control-plane) costs a pass that finds nothing.
func poolsOfNode(_ context.Context, obj client.Object) []reconcile.Request {
	// TODO(4): Map a node to the pools it concerns.
	// Return one request for each pool the node names, by a membership label or by
	// a record annotation, each pool once and never an empty name. A request names
	// the pool and no namespace: NodePool is cluster-scoped. See "Watching nodes"
	// in docs/lesson-05.md.
	return nil
}

// poolNodeChangedPredicate passes every create, delete and generic event of a node, and
// an update only when poolNodeChanged says it matters. Most node updates are the
// kubelet's heartbeats and status reports; without this filter each one would start a
// pass of every pool of the node.
func poolNodeChangedPredicate() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldNode, okOld := e.ObjectOld.(*corev1.Node)
			newNode, okNew := e.ObjectNew.(*corev1.Node)
			if !okOld || !okNew {
				return true
			}
			return poolNodeChanged(oldNode, newNode)
		},
	}
}

// poolNodeChanged reports whether an update changed something a NodePool pass reads of a
// node, such as its labels (membership, and the pool's labels), the pools' records or its
// taints.
func poolNodeChanged(oldNode, newNode *corev1.Node) bool {
	return !maps.Equal(oldNode.Labels, newNode.Labels) ||
		!maps.Equal(poolRecords(oldNode), poolRecords(newNode)) ||
		!equality.Semantic.DeepEqual(oldNode.Spec.Taints, newNode.Spec.Taints)
}

// poolRecords returns the annotations of node that are NodePool records.
func poolRecords(node *corev1.Node) map[string]string {
	records := map[string]string{}
	for key, value := range node.Annotations {
		if strings.HasPrefix(key, nodesv1.RecordAnnotationPrefix) {
			records[key] = value
		}
	}
	return records
}
