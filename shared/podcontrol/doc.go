// Package podcontrol holds what every controller that creates pods needs and no lesson
// teaches: expectations that protect a pass from a stale cache of its pods, creates in
// growing batches whose errors stay short (package batcherr), and the pod states
// upstream's controllers agree on. The ImoocPod and MyDaemonSet operators use it the way
// the ReplicaSet and DaemonSet controllers use k8s.io/kubernetes/pkg/controller. What a
// controller of any object needs, pods or not, has packages of its own: statuswrite
// protects its status from its own cache, batcherr keeps the error of many calls short.
package podcontrol
