package controller

import (
	corev1 "k8s.io/api/core/v1"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/07-nodepool-status-events/api/nodes/v1"
)

// The reasons of the NodePool's events. An event tells of a change, once: `kubectl
// describe nodepool` lists what happened to the pool, not how often it was reconciled.
const (
	EventNodeJoined     = "NodeJoined"
	EventNodeUpdated    = "NodeUpdated"
	EventNodeLeft       = "NodeLeft"
	EventCleanupDone    = "CleanupDone"
	EventReconcileError = "ReconcileError"
	EventRecordDropped  = "RecordDropped"
	// EventKeysHeldByOthers: members carry someone else's value for a key of the pool.
	EventKeysHeldByOthers = nodesv1.ReasonKeysHeldByOthers
)

// recordNodeChanges tells what a pass did to the nodes, with one Normal event about the
// pool for each kind of change. The event of a single node names it and has it as the
// related object; the event of several counts them and names the first (the nodes come
// sorted by name). A pass that changed nothing tells nothing.
func (r *NodePoolReconciler) recordNodeChanges(pool *nodesv1.NodePool, changes map[nodeChange][]*corev1.Node) {
	// TODO(6): Tell what the pass did to the nodes.
	// Each kind of change the pass made to nodes (joined, updated, left, in that
	// order) is told by one Normal event about the pool: about one node, naming it,
	// with it as the related object; about several, counting them and naming the
	// first. A pass that changed nothing tells nothing. See "Events" in
	// docs/lesson-07.md.
}

// maxEventNote is the longest note the API server accepts in an events.k8s.io Event. The
// recorder writes in the background: a longer note is refused, and the event is lost
// with nothing but a line in the manager's log.
const maxEventNote = 1024

// eventNote shortens message, an error's perhaps, to fit in an event's note.
func eventNote(message string) string {
	return shorten(message, maxEventNote)
}
