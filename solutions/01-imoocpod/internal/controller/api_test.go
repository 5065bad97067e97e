package controller

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/01-imoocpod/api/apps/v1"
)

// The API server checks ImoocPods against the CRD's schema, which controller-gen writes
// from the markers in api/apps/v1/imoocpod_types.go. These tests come first: the
// markers are the first tasks of the lesson.

func TestTheAPIServerRejectsBadSpecs(t *testing.T) {
	ns := env.Namespace(t)
	tests := []struct {
		name    string
		spec    map[string]any
		message string
	}{
		{"negative replicas", map[string]any{"replicas": -1}, "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"},
		{"too many replicas", map[string]any{"replicas": 1001}, "spec.replicas: Invalid value: 1001: spec.replicas in body should be less than or equal to 1000"},
		{"replicas as a string", map[string]any{"replicas": "three"}, `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer`},
		{"empty image", map[string]any{"image": ""}, "spec.image: Invalid value: \"\": spec.image in body should be at least 1 chars long"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": appsv1.GroupVersion.String(),
				"kind":       "ImoocPod",
				"metadata":   map[string]any{"namespace": ns, "name": fmt.Sprintf("bad-%d", i)},
				"spec":       tt.spec,
			}}
			err := env.Client.Create(env.Context(), obj)
			g.Expect(err).To(MatchError(ContainSubstring(tt.message)), "the API server should refuse %v", tt.spec)
		})
	}
}

func TestTheAPIServerDefaultsTheSpec(t *testing.T) {
	g := NewWithT(t)
	ip := &appsv1.ImoocPod{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace(t), Name: "defaults"}}
	g.Expect(env.Client.Create(env.Context(), ip)).To(Succeed())
	g.Expect(ip.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)), "a missing spec.replicas should default to 1")
	g.Expect(ip.Spec.Image).To(Equal("registry.k8s.io/pause:3.10"), "a missing spec.image should get the default")
}

// A name the pods' label cannot carry is refused when the ImoocPod is created, not on
// every pod create after it.
func TestTheAPIServerRefusesANameTooLongForALabel(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	long := newImoocPod(ns, strings.Repeat("a", 64), 1)
	g.Expect(errorText(env.Client.Create(env.Context(), long))).To(
		ContainSubstring("the name is the value of a label on every pod: at most 63 characters"),
		"an ImoocPod named with 64 characters should be refused: NameLabel's value would be too long")
	g.Expect(env.Client.Create(env.Context(), newImoocPod(ns, strings.Repeat("a", 63), 1))).To(Succeed(),
		"63 characters fit in a label value")
}
