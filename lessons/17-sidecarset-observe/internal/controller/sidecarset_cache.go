package controller

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
)

// CacheOptions says what the manager caches of every pod of the cluster: what TrimPod
// keeps of it, a small part of each pod the API server sends.
func CacheOptions() cache.Options {
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&corev1.Pod{}: {Transform: TrimPod},
	}}
}

// TrimPod keeps of a pod what the controller reads: its name, namespace, UID and
// resourceVersion (which the cache itself needs), its labels, its deletion time, of its
// annotations only sidecars.InjectedAnnotation, and of its spec only the names of its init
// containers and containers, which tell whether it runs a SidecarSet's sidecars
// (sidecars.Runs). Everything else, the rest of the spec, the status, managedFields,
// owner references and the other annotations (kubectl's last-applied-configuration alone
// can be kilobytes), never enters the cache. The object it returns is new: the informer
// owns the one it is given.
func TrimPod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		// A tombstone of a pod deleted while the watch was down, or some other kind:
		// stored as it is.
		return obj, nil
	}
	trimmed := &corev1.Pod{
		TypeMeta: pod.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              pod.Name,
			Namespace:         pod.Namespace,
			UID:               pod.UID,
			ResourceVersion:   pod.ResourceVersion,
			Labels:            pod.Labels,
			DeletionTimestamp: pod.DeletionTimestamp,
		},
		Spec: corev1.PodSpec{
			InitContainers: namesOnly(pod.Spec.InitContainers),
			Containers:     namesOnly(pod.Spec.Containers),
		},
	}
	if record, ok := pod.Annotations[sidecars.InjectedAnnotation]; ok {
		trimmed.Annotations = map[string]string{sidecars.InjectedAnnotation: record}
	}
	return trimmed, nil
}

// namesOnly returns new containers that hold nothing but the names of containers.
func namesOnly(containers []corev1.Container) []corev1.Container {
	if containers == nil {
		return nil
	}
	names := make([]corev1.Container, len(containers))
	for i := range containers {
		names[i].Name = containers[i].Name
	}
	return names
}
