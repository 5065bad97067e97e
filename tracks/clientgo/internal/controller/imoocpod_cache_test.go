package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-workshop/operator-workshop/tracks/clientgo/internal/imoocpods"
)

// The controller reads ImoocPods only from the cache of the informer imoocpods.Informer
// makes, through imoocpods.NewLister: that cache must hold typed ImoocPods, not what the
// dynamic client hands it. A fake dynamic client stands in for the API server.
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
		map[schema.GroupVersionResource]string{imoocpods.Resource: "ImoocPodList"}, stored)
	factory := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	informer, err := imoocpods.Informer(factory)
	g.Expect(err).NotTo(HaveOccurred())
	factory.Start(t.Context().Done())
	g.Expect(cache.WaitForCacheSync(t.Context().Done(), informer.HasSynced)).To(BeTrue())

	got, err := imoocpods.NewLister(informer).Get("ns", "web")
	g.Expect(err).NotTo(HaveOccurred(), "the lister should hand out the typed ImoocPod: does the transform "+
		"convert the dynamic client's *unstructured.Unstructured (runtime.DefaultUnstructuredConverter)?")
	g.Expect(got.Spec.Replicas).To(HaveValue(BeEquivalentTo(3)), "spec.replicas")
	g.Expect(got.Spec.Image).To(Equal("registry.k8s.io/pause:3.10"), "spec.image")
	g.Expect(got.Status.Replicas).To(BeEquivalentTo(1), "status.replicas")
	g.Expect(got.Generation).To(BeEquivalentTo(2), "metadata.generation")
	g.Expect(got.ManagedFields).To(BeEmpty(), "the cache keeps no managedFields")

	_, err = imoocpods.NewLister(informer).Get("ns", "missing")
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a missing ImoocPod should be NotFound, got %v", err)
}
