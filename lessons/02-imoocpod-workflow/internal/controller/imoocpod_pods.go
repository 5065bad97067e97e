package controller

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/02-imoocpod-workflow/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
)

// activePods returns the pods that count towards spec.replicas: the ones this ImoocPod
// controls that are neither being deleted nor finished. A pod with the right label but
// another controller, or none, belongs to someone else and is never touched.
func activePods(owner *appsv1.ImoocPod, pods []corev1.Pod) []corev1.Pod {
	var active []corev1.Pod
	for _, pod := range pods {
		if !metav1.IsControlledBy(&pod, owner) || !pod.DeletionTimestamp.IsZero() {
			continue
		}
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		active = append(active, pod)
	}
	return active
}

// podsToDelete picks count pods to delete, the ones whose loss hurts least first: pods
// that are not ready yet, then the newest, whose work is least likely to be warmed up.
func podsToDelete(pods []corev1.Pod, count int) []corev1.Pod {
	sorted := slices.Clone(pods)
	slices.SortStableFunc(sorted, func(a, b corev1.Pod) int {
		if ra, rb := podcontrol.IsPodReady(&a), podcontrol.IsPodReady(&b); ra != rb {
			if !ra {
				return -1
			}
			return 1
		}
		return b.CreationTimestamp.Compare(a.CreationTimestamp.Time)
	})
	return sorted[:min(count, len(sorted))]
}
