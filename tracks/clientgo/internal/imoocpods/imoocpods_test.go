package imoocpods

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	appsv1 "github.com/kube-workshop/operator-workshop/tracks/clientgo/api/apps/v1"
)

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
