package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions says what the manager caches beyond the defaults: of all pods, only those
// labelled MyDaemonSetLabel, which every pod a MyDaemonSet creates carries.
//
// A controller that watches a kind (Owns(&corev1.Pod{}), or a Get or List through the
// manager's client) makes the manager list and watch every object of that kind in the
// cluster and keep them all in memory. The controller only ever reads its own pods, so
// the API server filters the rest out before they reach us; on a cluster of thousands
// of pods that is most of the manager's memory (make bench-mydaemonset). Nodes stay
// cached whole: the controller reads every one.
//
// The price: a pod without the label is invisible to the manager's client. Code that
// must see such a pod (someone else's pod holding a name we want) reads it from the API
// server (mgr.GetAPIReader()).
func CacheOptions() cache.Options {
	ours, err := labels.NewRequirement(MyDaemonSetLabel, selection.Exists, nil)
	if err != nil {
		panic(err) // The label is a constant: a bad one is a bug, found by every test.
	}
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Pod{}: {Label: labels.NewSelector().Add(*ours)},
	}}
}
