package controller

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/solutions/11-sidecarset-status/internal/sidecars"
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
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		podMetadata(): {Transform: TrimPod},
	}}
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
	trimmed := &metav1.PartialObjectMetadata{
		TypeMeta: pod.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name:              pod.Name,
			Namespace:         pod.Namespace,
			UID:               pod.UID,
			ResourceVersion:   pod.ResourceVersion,
			Labels:            pod.Labels,
			DeletionTimestamp: pod.DeletionTimestamp,
		},
	}
	if record, ok := pod.Annotations[sidecars.InjectedAnnotation]; ok {
		trimmed.Annotations = map[string]string{sidecars.InjectedAnnotation: record}
	}
	return trimmed, nil
}
