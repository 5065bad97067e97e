package controller

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// Every malformed MyDaemonSet is refused by the API server, as kubectl sends it (strict
// field validation, kubectl's default), with an error that names the field: the CRD's
// schema (types, required fields, lengths, the tolerations' rules), the API server's own
// checks of metadata, and strict decoding (a misspelt field is an error, not silently
// dropped). These tests run without the webhooks: the schema alone refuses all of it.
func TestTheAPIServerRefusesMalformedMyDaemonSets(t *testing.T) {
	ns := env.Namespace(t)
	toleration := func(fields map[string]any) map[string]any {
		t := map[string]any{"key": "dedicated", "operator": "Equal", "value": "agents", "effect": "NoSchedule"}
		for k, v := range fields {
			if v == nil {
				delete(t, k)
			} else {
				t[k] = v
			}
		}
		return t
	}
	tooMany := make([]any, 33)
	for i := range tooMany {
		tooMany[i] = toleration(map[string]any{"key": fmt.Sprintf("key-%d", i)})
	}
	tests := []struct {
		name string
		// with changes a valid MyDaemonSet; a nil value deletes the field.
		with  map[string]any
		field string
	}{
		{"no image", map[string]any{"spec.image": nil}, "spec.image"},
		{"image empty", map[string]any{"spec.image": ""}, "spec.image"},
		{"image a number", map[string]any{"spec.image": 5}, "spec.image"},
		{"image a boolean", map[string]any{"spec.image": true}, "spec.image"},
		{"image a list", map[string]any{"spec.image": []any{"nginx"}}, "spec.image"},
		{"image an object", map[string]any{"spec.image": map[string]any{}}, "spec.image"},
		{"no spec", map[string]any{"spec": nil}, "spec"},
		{"spec a string", map[string]any{"spec": "every node"}, "spec"},
		{"spec a list", map[string]any{"spec": []any{}}, "spec"},
		{"spec a number", map[string]any{"spec": 1}, "spec"},
		{"nodeSelector a string", map[string]any{"spec.nodeSelector": "role=agent"}, "spec.nodeSelector"},
		{"nodeSelector a list", map[string]any{"spec.nodeSelector": []any{"role=agent"}}, "spec.nodeSelector"},
		{"a nodeSelector value a number", map[string]any{"spec.nodeSelector": map[string]any{"zone": 1}}, "spec.nodeSelector.zone"},
		{"a nodeSelector value a boolean", map[string]any{"spec.nodeSelector": map[string]any{"gpu": true}}, "spec.nodeSelector.gpu"},
		{"a nodeSelector value an object", map[string]any{"spec.nodeSelector": map[string]any{"role": map[string]any{}}}, "spec.nodeSelector.role"},
		{"tolerations an object", map[string]any{"spec.tolerations": toleration(nil)}, "spec.tolerations"},
		{"tolerations a string", map[string]any{"spec.tolerations": "dedicated=agents"}, "spec.tolerations"},
		{"a toleration a string", map[string]any{"spec.tolerations": []any{"dedicated"}}, "spec.tolerations[0]"},
		{"33 tolerations", map[string]any{"spec.tolerations": tooMany}, "spec.tolerations"},
		{"a toleration's operator In", map[string]any{"spec.tolerations": []any{toleration(map[string]any{"operator": "In"})}}, "spec.tolerations"},
		{"a toleration's unknown effect", map[string]any{"spec.tolerations": []any{toleration(map[string]any{"effect": "NoRun"})}}, "spec.tolerations"},
		{"a toleration without a key, operator Equal", map[string]any{"spec.tolerations": []any{toleration(map[string]any{"key": nil})}}, "spec.tolerations"},
		{"a toleration with operator Exists and a value", map[string]any{"spec.tolerations": []any{toleration(map[string]any{"operator": "Exists"})}}, "spec.tolerations"},
		{"a toleration with tolerationSeconds", map[string]any{"spec.tolerations": []any{toleration(map[string]any{"effect": "NoExecute", "tolerationSeconds": 30})}}, "spec.tolerations"},
		{"a toleration's key a number", map[string]any{"spec.tolerations": []any{toleration(map[string]any{"key": 5})}}, "spec.tolerations[0].key"},
		{"a misspelt toleration field", map[string]any{"spec.tolerations": []any{toleration(map[string]any{"keys": "x"})}}, "spec.tolerations[0].keys"},
		{"a misspelt spec field", map[string]any{"spec.imag": "nginx"}, "spec.imag"},
		{"a spec field in the wrong case", map[string]any{"spec.NodeSelector": map[string]any{}}, "spec.NodeSelector"},
		{"an unknown top-level field", map[string]any{"specs": map[string]any{}}, "specs"},
		{"an unknown metadata field", map[string]any{"metadata.nmae": "x"}, "metadata.nmae"},
		{"a name in capitals", map[string]any{"metadata.name": "Agent"}, "metadata.name"},
		{"a name with an underscore", map[string]any{"metadata.name": "node_agent"}, "metadata.name"},
		{"a label value too long", map[string]any{"metadata.labels": map[string]any{"app": strings.Repeat("a", 64)}}, "metadata.labels"},
		{"imagePullPolicy not a policy", map[string]any{"spec.imagePullPolicy": "Sometimes"}, "spec.imagePullPolicy"},
		{"imagePullPolicy in lower case", map[string]any{"spec.imagePullPolicy": "always"}, "spec.imagePullPolicy"},
		{"imagePullPolicy a number", map[string]any{"spec.imagePullPolicy": 1}, "spec.imagePullPolicy"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := env.CreateAsKubectl(map[string]any{
				"apiVersion": appsv1.GroupVersion.String(),
				"kind":       "MyDaemonSet",
				"metadata":   map[string]any{"namespace": ns, "name": fmt.Sprintf("malformed-%d", i)},
				"spec":       map[string]any{"image": pauseImage, "nodeSelector": map[string]any{testNodeLabel: ns}},
			}, tt.with)
			g.Expect(err).To(HaveOccurred(), "the API server should refuse a MyDaemonSet with %v", tt.with)
			g.Expect(err.Error()).To(ContainSubstring(tt.field), "the error should name the field %s", tt.field)
		})
	}
}

func TestTheAPIServerRejectsBadMyDaemonSets(t *testing.T) {
	ns := env.Namespace(t)
	tests := []struct {
		name    string
		objName string
		spec    map[string]any
		message string
	}{
		{"no image", "", map[string]any{}, "spec.image: Required value"},
		{"an empty image", "", map[string]any{"image": ""}, "spec.image in body should be at least 1 chars long"},
		{"a node selector value that is not a string", "", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"disk": 1}},
			"spec.nodeSelector.disk: Invalid value"},
		{"a name longer than a label value", strings.Repeat("x", 64), map[string]any{"image": pauseImage},
			"a MyDaemonSet's name is at most 63 characters"},
		{"a toleration operator that does not exist", "", map[string]any{"image": pauseImage,
			"tolerations": []any{map[string]any{"key": "k", "operator": "Lt", "value": "1"}}}, "operator must be Equal or Exists"},
		{"a toleration without a key that is not Exists", "", map[string]any{"image": pauseImage,
			"tolerations": []any{map[string]any{"value": "v"}}}, "a toleration without a key must have the operator Exists"},
		{"a toleration with tolerationSeconds", "", map[string]any{"image": pauseImage,
			"tolerations": []any{map[string]any{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}}},
			"tolerationSeconds is not supported"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			name := tt.objName
			if name == "" {
				name = fmt.Sprintf("bad-%d", i)
			}
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": appsv1.GroupVersion.String(),
				"kind":       "MyDaemonSet",
				"metadata":   map[string]any{"namespace": ns, "name": name},
				"spec":       tt.spec,
			}}
			g.Expect(env.Client().Create(env.Context(), obj)).To(MatchError(ContainSubstring(tt.message)))
		})
	}
}
