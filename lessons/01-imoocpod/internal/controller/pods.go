package controller

import (
	corev1 "k8s.io/api/core/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/01-imoocpod/api/apps/v1"
)

// activePods returns the pods that count towards spec.replicas: the ones this ImoocPod
// controls that are neither being deleted nor finished. A pod with the right label but
// another controller, or none, belongs to someone else and is never touched.
func activePods(owner *appsv1.ImoocPod, pods []corev1.Pod) []corev1.Pod {
	// TODO(4): Keep only the pods that count.
	// Keep only the pods that owner controls (metav1.IsControlledBy) and that
	// are still running or about to: not being deleted, not Succeeded or Failed.
	return pods
}

// podsToDelete picks count pods to delete, the ones whose loss hurts least first: pods
// that are not ready yet, then the newest, whose work is least likely to be warmed up.
func podsToDelete(pods []corev1.Pod, count int) []corev1.Pod {
	// TODO(5): Choose the pods to delete.
	// Return count pods: not-ready pods before ready ones (podcontrol.IsPodReady),
	// and within each group the newest first (CreationTimestamp). Sort a copy:
	// pods comes from the cache and must not be changed.
	return nil
}
