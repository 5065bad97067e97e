package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/12-clientgo/api/apps/v1"
)

// The API server checks ImoocPods against the CRD's schema, which controller-gen writes
// from the markers in api/apps/v1/imoocpod_types.go: the same CRD as solution 02's.

func TestTheAPIServerRejectsBadSpecs(t *testing.T) {
	expectRefused(t, appsv1.GroupVersion, []badSpec{
		{"negative replicas", map[string]any{"replicas": -1}, "spec.replicas in body should be greater than or equal to 0"},
		{"too many replicas", map[string]any{"replicas": 1001}, "spec.replicas in body should be less than or equal to 1000"},
		{"empty image", map[string]any{"image": ""}, "spec.image in body should be at least 1 chars long"},
	})
}

func TestTheAPIServerDefaultsTheSpec(t *testing.T) {
	g := NewWithT(t)
	ip := &appsv1.ImoocPod{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace(t), Name: "defaults"}}
	g.Expect(env.Client().Create(env.Context(), ip)).To(Succeed())
	g.Expect(ip.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)), "a missing spec.replicas should default to 1")
	g.Expect(ip.Spec.Image).To(Equal("registry.k8s.io/pause:3.10"), "a missing spec.image should get the default")
}
