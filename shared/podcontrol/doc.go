// Package podcontrol holds what every controller that creates pods needs and no lesson
// teaches: expectations that protect a pass from a stale cache (of its pods, and of the
// status it wrote last), creates in growing batches whose errors stay short, and the pod
// states upstream's controllers agree on. The ImoocPod and MyDaemonSet operators use it
// the way the ReplicaSet and DaemonSet controllers use k8s.io/kubernetes/pkg/controller.
package podcontrol
