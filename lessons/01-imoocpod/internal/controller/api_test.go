package controller

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/01-imoocpod/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The API server checks ImoocPods against the CRD's schema, which controller-gen writes
// from the markers in api/apps/v1/imoocpod_types.go. These tests come first: the
// markers are the first tasks of the lesson.

func TestTheAPIServerChecksTheReplicaCount(t *testing.T) {
	expectRefused(t, appsv1.GroupVersion, []badSpec{
		{"negative replicas", map[string]any{"replicas": -1}, "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"},
		{"too many replicas", map[string]any{"replicas": 1001}, "spec.replicas: Invalid value: 1001: spec.replicas in body should be less than or equal to 1000"},
		{"replicas as a string", map[string]any{"replicas": "three"}, `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer`},
	})
	g := NewWithT(t)
	ip := &appsv1.ImoocPod{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace(t), Name: "default-replicas"}}
	g.Expect(env.Client().Create(env.Context(), ip)).To(Succeed())
	g.Expect(ip.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)), "a missing spec.replicas should default to 1")
}

func TestTheAPIServerChecksTheImage(t *testing.T) {
	expectRefused(t, appsv1.GroupVersion, []badSpec{
		{"empty image", map[string]any{"image": ""}, "spec.image: Invalid value: \"\": spec.image in body should be at least 1 chars long"},
	})
	g := NewWithT(t)
	ip := &appsv1.ImoocPod{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace(t), Name: "default-image"}}
	g.Expect(env.Client().Create(env.Context(), ip)).To(Succeed())
	g.Expect(ip.Spec.Image).To(Equal("registry.k8s.io/pause:3.10"), "a missing spec.image should get the default")
}

// A name the pods' label cannot carry is refused when the ImoocPod is created, not on
// every pod create after it.
func TestTheAPIServerRefusesANameTooLongForALabel(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	long := newImoocPod(ns, strings.Repeat("a", 64), 1)
	g.Expect(testenv.ErrorText(env.Client().Create(env.Context(), long))).To(
		ContainSubstring("the name is the value of a label on every pod: at most 63 characters"),
		"an ImoocPod named with 64 characters should be refused: NameLabel's value would be too long")
	g.Expect(env.Client().Create(env.Context(), newImoocPod(ns, strings.Repeat("a", 63), 1))).To(Succeed(),
		"63 characters fit in a label value")
}

// Every malformed ImoocPod is refused by the API server, as kubectl sends it (strict
// field validation, kubectl's default), with an error that names the field: the CRD's
// schema (types, ranges, lengths), the API server's own checks of metadata, and strict
// decoding (a misspelt field is an error, not silently dropped).
func TestTheAPIServerRefusesMalformedImoocPods(t *testing.T) {
	ns := env.Namespace(t)
	long := strings.Repeat("a", 64)
	tests := []struct {
		name string
		// with changes a valid ImoocPod; nil values delete the field.
		with  map[string]any
		field string
	}{
		{"replicas below 0", map[string]any{"spec.replicas": -1}, "spec.replicas"},
		{"replicas far below 0", map[string]any{"spec.replicas": -1000}, "spec.replicas"},
		{"replicas above 1000", map[string]any{"spec.replicas": 1001}, "spec.replicas"},
		{"replicas far above 1000", map[string]any{"spec.replicas": 5000}, "spec.replicas"},
		{"replicas the largest int32", map[string]any{"spec.replicas": 2147483647}, "spec.replicas"},
		{"replicas the smallest int32", map[string]any{"spec.replicas": -2147483648}, "spec.replicas"},
		{"replicas a word", map[string]any{"spec.replicas": "three"}, "spec.replicas"},
		{"replicas a number in a string", map[string]any{"spec.replicas": "3"}, "spec.replicas"},
		{"replicas a fraction", map[string]any{"spec.replicas": 1.5}, "spec.replicas"},
		{"replicas a boolean", map[string]any{"spec.replicas": true}, "spec.replicas"},
		{"replicas a list", map[string]any{"spec.replicas": []any{3}}, "spec.replicas"},
		{"replicas an object", map[string]any{"spec.replicas": map[string]any{"count": 3}}, "spec.replicas"},
		{"image empty", map[string]any{"spec.image": ""}, "spec.image"},
		{"image a number", map[string]any{"spec.image": 5}, "spec.image"},
		{"image a boolean", map[string]any{"spec.image": false}, "spec.image"},
		{"image a list", map[string]any{"spec.image": []any{"nginx"}}, "spec.image"},
		{"image an object", map[string]any{"spec.image": map[string]any{"name": "nginx"}}, "spec.image"},
		{"spec a string", map[string]any{"spec": "3 pods"}, "spec"},
		{"spec a list", map[string]any{"spec": []any{}}, "spec"},
		{"spec a number", map[string]any{"spec": 3}, "spec"},
		{"spec a boolean", map[string]any{"spec": true}, "spec"},
		{"a misspelt spec field", map[string]any{"spec.replica": 3}, "spec.replica"},
		{"a spec field in the wrong case", map[string]any{"spec.Image": "nginx"}, "spec.Image"},
		{"an unknown top-level field", map[string]any{"specs": map[string]any{}}, "specs"},
		{"an unknown metadata field", map[string]any{"metadata.nmae": "x"}, "metadata.nmae"},
		{"a name in capitals", map[string]any{"metadata.name": "Web"}, "metadata.name"},
		{"a name with an underscore", map[string]any{"metadata.name": "web_1"}, "metadata.name"},
		{"a name that starts with a dash", map[string]any{"metadata.name": "-web"}, "metadata.name"},
		{"a label key with a space", map[string]any{"metadata.labels": map[string]any{"bad key": "x"}}, "metadata.labels"},
		{"a label value too long", map[string]any{"metadata.labels": map[string]any{"app": long}}, "metadata.labels"},
		{"labels a list", map[string]any{"metadata.labels": []any{"app=web"}}, "ObjectMeta.labels"},
		{"a finalizer that is not a qualified name", map[string]any{"metadata.finalizers": []any{"not a name"}}, "metadata.finalizers"},
		{"an owner reference without a UID", map[string]any{"metadata.ownerReferences": []any{map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "",
		}}}, "metadata.ownerReferences"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := env.CreateAsKubectl(map[string]any{
				"apiVersion": appsv1.GroupVersion.String(),
				"kind":       "ImoocPod",
				"metadata":   map[string]any{"namespace": ns, "name": fmt.Sprintf("malformed-%d", i)},
				"spec":       map[string]any{"replicas": 2, "image": "registry.k8s.io/pause:3.10"},
			}, tt.with)
			g.Expect(err).To(HaveOccurred(), "the API server should refuse an ImoocPod with %v", tt.with)
			g.Expect(err.Error()).To(ContainSubstring(tt.field), "the error should name the field %s", tt.field)
		})
	}
}
