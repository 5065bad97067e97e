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
	// activePods keeps the pods that count towards spec.replicas: those the ImoocPod
	// controls (a copied label is not enough), not being deleted and not finished
	// (Succeeded or Failed). It leaves its input as it was. See "Which pods count, and
	// which pods go" in docs/lesson-01.md.
	return pods
}

// podsToDelete picks count pods to delete, the ones whose loss hurts least first: pods
// that are not ready yet, then the newest, whose work is least likely to be warmed up.
func podsToDelete(pods []corev1.Pod, count int) []corev1.Pod {
	// TODO(5): Choose the pods to delete.
	// podsToDelete returns count pods (all if fewer), those whose loss hurts least: not
	// ready before ready, and within each group the newest first. Its input comes from the
	// cache and must stay as it was. See "Which pods count, and which pods go" in
	// docs/lesson-01.md.
	return nil
}
