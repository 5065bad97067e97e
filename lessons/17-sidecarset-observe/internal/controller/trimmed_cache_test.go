package controller

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
)

func TestTrimPodKeepsOnlyWhatTheControllerReads(t *testing.T) {
	g := NewWithT(t)
	now := metav1.Now()
	always := corev1.ContainerRestartPolicyAlways
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
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
		},
		Spec: corev1.PodSpec{
			NodeName:       "node-1",
			InitContainers: []corev1.Container{{Name: "log-shipper", Image: "busybox:1.37", RestartPolicy: &always}},
			Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10",
				Env: []corev1.EnvVar{{Name: "MODE", Value: strings.Repeat("y", 1024)}}}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1"},
	}
	trimmed, err := TrimPod(pod)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(trimmed).To(Equal(&corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "web-1", Namespace: "shop", UID: "uid-1", ResourceVersion: "42",
			Labels:            map[string]string{"app": "web"},
			DeletionTimestamp: &now,
			Annotations:       map[string]string{sidecars.InjectedAnnotation: `{"logging":"abc"}`},
		},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "log-shipper"}},
			Containers:     []corev1.Container{{Name: "web"}},
		},
	}))
	g.Expect(pod.Annotations).To(HaveLen(2), "TrimPod should return a new object, not change the informer's")
	g.Expect(pod.Spec.Containers[0].Image).NotTo(BeEmpty(), "TrimPod should return a new object, not change the informer's")

	other := "a tombstone"
	g.Expect(TrimPod(other)).To(Equal(other), "what is no pod is kept as it is")
}

// The manager caches pods trimmed: a pod read back from its cache has, of its spec, the
// names of its containers, and of its annotations only the record, however many it has.
func TestTheCacheHoldsTrimmedPods(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("cache")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	pod := createPods(g, ns, "pod", value, 1)[0]
	g.Expect(pod.Annotations).To(HaveKey(sidecars.InjectedAnnotation), "the webhook should have injected the pod")
	record := pod.Annotations[sidecars.InjectedAnnotation]
	g.Expect(sidecars.Injected(pod.Annotations)).To(HaveKey(set.Name))

	// kubectl apply writes the whole object it applied into an annotation of its own.
	patch(g, pod, func(pod *corev1.Pod) {
		pod.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = strings.Repeat("x", 4096)
	})

	// The cache transforms an object before it stores it: once it holds the patched
	// pod, that is what it keeps.
	var cached corev1.Pod
	g.Eventually(func(g Gomega) {
		g.Expect(env.Manager().GetCache().Get(env.Context(), client.ObjectKeyFromObject(pod), &cached)).To(Succeed())
		g.Expect(cached.ResourceVersion).To(Equal(pod.ResourceVersion), "the cache should hold the pod as patched")
	}).Should(Succeed())
	g.Expect(cached.Annotations).To(Equal(map[string]string{sidecars.InjectedAnnotation: record}),
		"of a pod's annotations the cache should hold only the record: CacheOptions should give the pods the transform TrimPod")
	g.Expect(cached.ManagedFields).To(BeEmpty())
	g.Expect(cached.Spec).To(Equal(corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "log-shipper"}},
		Containers:     []corev1.Container{{Name: "app"}},
	}), "of a pod's spec the cache should hold only the names of its containers")
}
