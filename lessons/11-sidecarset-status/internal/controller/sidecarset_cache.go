package controller

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// CacheOptions says what the manager caches of every pod of the cluster: what TrimPod
// keeps of it, a small part of each pod the API server sends.
func CacheOptions() cache.Options {
	// TODO(7): Give the pods' cache the transform TrimPod.
	// The manager's cache runs TrimPod on every pod it receives, before it stores it,
	// and on no other kind. See "Cache only what you read" in docs/lesson-11.md.
	return cache.Options{}
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
	// TODO(6): Keep only what the controller reads of a pod.
	// TrimPod returns a new pod holding only what is read of it: its TypeMeta, name,
	// namespace, UID, resourceVersion, labels, deletion time, the record alone of its
	// annotations, and the names of its init containers and containers. The pod it is
	// given stays as it is. See "Cache only what you read" in docs/lesson-11.md.
	return pod, nil
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
