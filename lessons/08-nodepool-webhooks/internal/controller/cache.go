package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ManagedByLabel, set to ManagedBy, marks every pod this manager's controllers create,
// whichever controller made it. The label a controller finds its own pods by (NameLabel,
// MyDaemonSetLabel) differs per controller; this one is shared, so one cache selector
// covers them all.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "apps.workshop.dev"
)

// CacheOptions says what the manager caches beyond the defaults: of all pods, only those
// labelled ManagedByLabel=ManagedBy.
//
// A controller that watches a kind (Owns(&corev1.Pod{}), or a Get or List through the
// manager's client) makes the manager list and watch every object of that kind in the
// cluster and keep them all in memory. The ImoocPod and MyDaemonSet controllers only ever
// read their own pods, so the API server filters the rest out before they reach us; on a
// cluster of thousands of pods that is most of the manager's memory (make
// bench-nodepool). Nodes stay cached whole: the NodePool and MyDaemonSet controllers
// read every one.
//
// The price: a pod without the label is invisible to the manager's client. Code that
// must see such a pod (a pod of someone else holding a name we want) reads it from the
// API server (mgr.GetAPIReader()).
func CacheOptions() cache.Options {
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Pod{}: {Label: labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedBy})},
	}}
}
