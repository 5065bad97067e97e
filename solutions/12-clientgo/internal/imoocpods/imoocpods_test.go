package imoocpods

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/12-clientgo/api/apps/v1"
)

func TestTheInformerCachesTypedImoocPods(t *testing.T) {
	g := NewWithT(t)
	stored := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.workshop.dev/v1",
		"kind":       "ImoocPod",
		"metadata": map[string]any{
			"namespace": "ns", "name": "web", "generation": int64(2),
			"managedFields": []any{map[string]any{"manager": "kubectl", "operation": "Update"}},
		},
		"spec":   map[string]any{"replicas": int64(3), "image": "registry.k8s.io/pause:3.10"},
		"status": map[string]any{"replicas": int64(1)},
	}}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{Resource: "ImoocPodList"}, stored)
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	informer, err := Informer(factory)
	g.Expect(err).NotTo(HaveOccurred())
	factory.Start(t.Context().Done())
	g.Expect(cache.WaitForCacheSync(t.Context().Done(), informer.HasSynced)).To(BeTrue())

	got, err := NewLister(informer).Get("ns", "web")
	g.Expect(err).NotTo(HaveOccurred(), "the lister should hand out the typed ImoocPod: does the transform "+
		"convert the dynamic client's *unstructured.Unstructured (runtime.DefaultUnstructuredConverter)?")
	g.Expect(got.Spec.Replicas).To(HaveValue(BeEquivalentTo(3)), "spec.replicas")
	g.Expect(got.Spec.Image).To(Equal("registry.k8s.io/pause:3.10"), "spec.image")
	g.Expect(got.Status.Replicas).To(BeEquivalentTo(1), "status.replicas")
	g.Expect(got.Generation).To(BeEquivalentTo(2), "metadata.generation")
	g.Expect(got.ManagedFields).To(BeEmpty(), "the cache keeps no managedFields")

	_, err = NewLister(informer).Get("ns", "missing")
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a missing ImoocPod should be NotFound, got %v", err)
}

func TestTheStatusPatchCarriesOnlyTheDifference(t *testing.T) {
	g := NewWithT(t)
	orig := &appsv1.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec:       appsv1.ImoocPodSpec{Replicas: ptr.To[int32](3)},
		Status:     appsv1.ImoocPodStatus{Replicas: 3, ReadyReplicas: 3, ObservedGeneration: 1, Selector: "app=web"},
	}
	modified := orig.DeepCopy()
	modified.Status.ReadyReplicas = 0
	modified.Status.ObservedGeneration = 2
	modified.Status.Selector = ""

	patch, err := statusMergePatch(orig, modified)
	g.Expect(err).NotTo(HaveOccurred())
	var body map[string]any
	g.Expect(json.Unmarshal(patch, &body)).To(Succeed())
	g.Expect(body).To(Equal(map[string]any{"status": map[string]any{
		"readyReplicas": float64(0), "observedGeneration": float64(2), "selector": nil,
	}}), "the patch should set what changed and null what the JSON now leaves out (omitempty), nothing else: %s", patch)
}
