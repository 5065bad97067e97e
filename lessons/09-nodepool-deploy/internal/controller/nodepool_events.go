package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
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

// recordPassEvents tells in events what a pass found and did, from found; was is the
// pool as the pass read it. A conflict is for someone to resolve: one Warning tells of it
// when was's Conflict condition is not True yet or names another conflict, not on every
// pass that finds it again. A dropped record gets a Warning on the pass that drops it:
// what the pool gave that node stays there, and only someone who reads the event can
// remove it. A spec change on a pool of a thousand members is one change of the pool: a
// thousand events would bury every other one, and the recorder drops events past 1000.
func (r *NodePoolReconciler) recordPassEvents(was, pool *nodesv1.NodePool, found *passResult) {
	conflict := conflictCondition(pool, found)
	told := meta.FindStatusCondition(was.Status.Conditions, nodesv1.ConditionConflict)
	if conflict.Status == metav1.ConditionTrue && (told == nil || told.Status != conflict.Status || told.Message != conflict.Message) {
		r.Recorder.Eventf(pool, nil, corev1.EventTypeWarning, EventKeysHeldByOthers, "Label", "%s", eventNote(conflict.Message))
	}
	if dropped := unreadableRecordsCondition(pool, found); dropped.Status == metav1.ConditionTrue {
		r.Recorder.Eventf(pool, nil, corev1.EventTypeWarning, EventRecordDropped, "Unlabel", "%s", eventNote(dropped.Message))
	}
	r.recordNodeChanges(pool, found.changes)
}

// recordNodeChanges tells what a pass did to the nodes, with one Normal event about the
// pool for each kind of change. The event of a single node names it and has it as the
// related object; the event of several counts them and names the first (the nodes come
// sorted by name). A pass that changed nothing tells nothing.
func (r *NodePoolReconciler) recordNodeChanges(pool *nodesv1.NodePool, changes map[nodeChange][]*corev1.Node) {
	kinds := []struct {
		change         nodeChange
		reason, action string
		what           string
	}{
		{nodeJoined, EventNodeJoined, "Label", "joined the pool and got its labels and taints"},
		{nodeUpdated, EventNodeUpdated, "Label", "got the pool's current labels and taints"},
		{nodeLeft, EventNodeLeft, "Unlabel", "left the pool and lost its labels and taints"},
	}
	for _, kind := range kinds {
		nodes := changes[kind.change]
		switch len(nodes) {
		case 0:
		case 1:
			r.Recorder.Eventf(pool, nodes[0], corev1.EventTypeNormal, kind.reason, kind.action,
				"Node %s %s", nodes[0].Name, kind.what)
		default:
			r.Recorder.Eventf(pool, nil, corev1.EventTypeNormal, kind.reason, kind.action,
				"%d nodes %s; the first is %s", len(nodes), kind.what, nodes[0].Name)
		}
	}
}

// maxEventNote is the longest note the API server accepts in an events.k8s.io Event. The
// recorder writes in the background: a longer note is refused, and the event is lost
// with nothing but a line in the manager's log.
const maxEventNote = 1024

// eventNote shortens message, an error's perhaps, to fit in an event's note.
func eventNote(message string) string {
	return shorten(message, maxEventNote)
}
