package controller

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/solutions/11-sidecarset-status/internal/sidecars"
)

func TestTrimPodKeepsOnlyWhatTheControllerReads(t *testing.T) {
	g := NewWithT(t)
	now := metav1.Now()
	pod := podMetadata()
	pod.ObjectMeta = metav1.ObjectMeta{
		Name: "web-1", Namespace: "shop", UID: "uid-1", ResourceVersion: "42", Generation: 3,
		Labels:            map[string]string{"app": "web"},
		DeletionTimestamp: &now,
		Annotations: map[string]string{
			sidecars.InjectedAnnotation:                        `{"logging":"abc"}`,
			"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", 4096),
		},
		OwnerReferences: []metav1.OwnerReference{{Name: "web-abc", Kind: "ReplicaSet"}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		Finalizers:      []string{"example.com/hold"},
	}
	trimmed, err := TrimPod(pod)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(trimmed).To(Equal(&metav1.PartialObjectMetadata{
		TypeMeta: pod.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-1", Namespace: "shop", UID: "uid-1", ResourceVersion: "42",
			Labels:            map[string]string{"app": "web"},
			DeletionTimestamp: &now,
			Annotations:       map[string]string{sidecars.InjectedAnnotation: `{"logging":"abc"}`},
		},
	}))
	g.Expect(pod.Annotations).To(HaveLen(2), "TrimPod should return a new object, not change the informer's")

	other := "a tombstone"
	g.Expect(TrimPod(other)).To(Equal(other), "what is no pod metadata is kept as it is")
}

// The manager caches pods as trimmed metadata: a pod read back from its cache has no
// spec to read, and of its annotations only the record, however many it has.
func TestTheCacheHoldsTrimmedPodMetadata(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("cache")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	pod := createPods(g, ns, "pod", value, 1)[0]
	g.Expect(pod.Annotations).To(HaveKey(sidecars.InjectedAnnotation), "the webhook should have injected the pod")
	record := pod.Annotations[sidecars.InjectedAnnotation]
	g.Expect(sidecars.Injected(pod.Annotations)).To(HaveKey(set.Name))

	// kubectl apply writes the whole object it applied into an annotation of its own.
	patch := client.MergeFrom(pod.DeepCopy())
	pod.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = strings.Repeat("x", 4096)
	g.Expect(env.Client.Patch(env.Context(), pod, patch)).To(Succeed())

	g.Eventually(func(g Gomega) {
		cached := podMetadata()
		g.Expect(env.Manager.GetCache().Get(env.Context(), client.ObjectKeyFromObject(pod), cached)).To(Succeed())
		g.Expect(cached.ResourceVersion).To(Equal(pod.ResourceVersion), "the cache should hold the pod as patched")
		g.Expect(cached.Annotations).To(Equal(map[string]string{sidecars.InjectedAnnotation: record}),
			"of a pod's annotations the cache should hold only the record: CacheOptions should give the pods' metadata the transform TrimPod")
		g.Expect(cached.ManagedFields).To(BeEmpty())
	}).Should(Succeed())
}
