// Package podcontrol holds what every controller that creates pods needs and no lesson
// teaches: expectations that protect a pass from a stale cache, creates in growing
// batches, and the pod states upstream's controllers agree on. The ImoocPod and
// MyDaemonSet operators use it the way the ReplicaSet and DaemonSet controllers use
// k8s.io/kubernetes/pkg/controller.
package podcontrol
