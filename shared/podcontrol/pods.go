package podcontrol

import corev1 "k8s.io/api/core/v1"

// IsPodReady reports whether the kubelet says the pod is ready to serve.
func IsPodReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// IsPodActive reports whether the pod still counts as running or about to run: it is
// neither being deleted nor finished. A terminating pod may still run for its grace
// period, but a controller that counted it would wait for it instead of replacing it.
func IsPodActive(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp.IsZero() &&
		pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}
