package controller

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// podMetadata returns an empty pod of the kind the controller reads pods as: metadata
// only. Reading a pod as a corev1.Pod anywhere in the manager would start a second
// informer, of whole pods, next to the metadata one.
func podMetadata() *metav1.PartialObjectMetadata {
	pod := &metav1.PartialObjectMetadata{}
	pod.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	return pod
}

// CacheOptions says what the manager caches of every pod of the cluster. The controller
// watches pods as metadata only (builder.OnlyMetadata in SetupWithManager): the API
// server sends no spec and no status, which are most of a pod. TrimPod then drops from
// that metadata what the controller never reads.
func CacheOptions() cache.Options {
	// TODO(7): Give the pods' cache the transform TrimPod.
	// Return cache options whose ByObject gives the pods' metadata
	// (podMetadata()) the Transform TrimPod. See "Cache only what you read" in
	// docs/lesson-11.md.
	return cache.Options{}
}

// TrimPod keeps of a pod's metadata what the controller reads: its name, namespace, UID
// and resourceVersion (which the cache itself needs), its labels, its deletion time, and
// of its annotations only sidecars.InjectedAnnotation. Everything else, managedFields,
// owner references and the other annotations (kubectl's last-applied-configuration alone
// can be kilobytes), never enters the cache. The object it returns is new: the informer
// owns the one it is given.
func TrimPod(obj any) (any, error) {
	pod, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		// A tombstone of a pod deleted while the watch was down, or some other kind:
		// stored as it is.
		return obj, nil
	}
	// TODO(6): Keep only what the controller reads of a pod.
	// Return a new *metav1.PartialObjectMetadata with pod's TypeMeta and only
	// the metadata fields named above. See "Cache only what you read" in
	// docs/lesson-11.md.
	return pod, nil
}
