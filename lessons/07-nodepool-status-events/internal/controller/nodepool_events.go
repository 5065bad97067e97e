package controller

import (
	"strings"

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
)

// recordNodeChange tells, with one event about the pool and the node, what a pass did to
// the node. A node the pass left alone gets no event.
func (r *NodePoolReconciler) recordNodeChange(pool *nodesv1.NodePool, node *corev1.Node, change nodeChange) {
	// TODO: Emit one Normal event about the pool, with the node as the related object:
	// EventNodeJoined, EventNodeUpdated or EventNodeLeft with an action and a note
	// that names the node; none for any other change. See "Events" in
	// docs/lesson-07.md.
}

// maxEventNote is the longest note the API server accepts in an events.k8s.io Event. The
// recorder writes in the background: a longer note is refused, and the event is lost
// with nothing but a line in the manager's log.
const maxEventNote = 1024

// eventNote shortens message, an error's perhaps, to fit in an event's note.
func eventNote(message string) string {
	if len(message) <= maxEventNote {
		return message
	}
	return strings.ToValidUTF8(message[:maxEventNote-3], "") + "..."
}
