package v1

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/api/sidecars/v1"
)

// The bad sample is refused by the API server, every problem in one answer; an update
// is checked like a create.
func TestTheAPIServerRefusesBadSidecarSets(t *testing.T) {
	g := NewWithT(t)
	env.WebhookNamespace(t)
	file, err := os.Open(filepath.Join("..", "..", "..", "config", "samples", "bad_sidecarset.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	defer file.Close()
	var bad sidecarsv1.SidecarSet
	g.Expect(yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&bad)).To(Succeed())

	err = env.Client.Create(env.Context(), &bad)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "the bad sample should be refused as Invalid, got %v", err)
	g.Expect(causeFields(err)).To(Equal([]string{
		"spec.selector.matchExpressions[0].operator",
		"spec.volumes[0].name",
		"spec.containers[0].volumeMounts[0].mountPath",
		"spec.containers[1].name",
	}), "every problem in one answer, each with its field: %v", err)
	g.Expect(apierrors.IsNotFound(env.Client.Get(env.Context(), client.ObjectKeyFromObject(&bad), &sidecarsv1.SidecarSet{}))).
		To(BeTrue(), "nothing should be stored")

	good := newSidecarSet(newCase("update"), "x", []corev1.Container{sidecar("proxy")})
	createSidecarSet(t, g, good)
	good.Spec.Containers = append(good.Spec.Containers, sidecar("proxy"))
	err = env.Client.Update(env.Context(), good)
	g.Expect(causeFields(err)).To(Equal([]string{"spec.containers[1].name"}), "an update is checked like a create")
}

// Malformed SidecarSets, sent as JSON through the real API server: each must be refused
// as Invalid, with a cause naming the field at fault. Some are the CRD schema's to refuse
// (types, required fields), the others the validating webhook's; either way the user
// learns which field to fix.
func TestMalformedSidecarSetsAreRefusedWithTheirField(t *testing.T) {
	env.WebhookNamespace(t) // waits for the webhook server
	proxy := func(fields map[string]any) map[string]any {
		c := map[string]any{"name": "proxy", "image": "envoyproxy/envoy:v1.36"}
		for k, v := range fields {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return c
	}
	spec := func(fields map[string]any) map[string]any {
		s := map[string]any{
			"selector":   map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"containers": []any{proxy(nil)},
		}
		for k, v := range fields {
			if v == nil {
				delete(s, k)
			} else {
				s[k] = v
			}
		}
		return s
	}
	containers := func(c ...map[string]any) map[string]any {
		list := make([]any, len(c))
		for i := range c {
			list[i] = c[i]
		}
		return spec(map[string]any{"containers": list})
	}
	expression := func(key, operator string, values ...any) map[string]any {
		e := map[string]any{"key": key, "operator": operator}
		if values != nil {
			e["values"] = values
		}
		return map[string]any{"matchExpressions": []any{e}}
	}
	mount := func(name, path string) map[string]any { return map[string]any{"name": name, "mountPath": path} }
	volumes := func(names ...string) map[string]any {
		list := make([]any, len(names))
		for i, name := range names {
			list[i] = map[string]any{"name": name, "emptyDir": map[string]any{}}
		}
		return spec(map[string]any{"volumes": list})
	}

	tests := []struct {
		name  string
		spec  map[string]any
		field string
	}{
		{"no selector", spec(map[string]any{"selector": nil}), "spec.selector"},
		{"a selector operator that does not exist", spec(map[string]any{"selector": expression("app", "Within", "web")}),
			"spec.selector.matchExpressions[0].operator"},
		{"an empty selector", spec(map[string]any{"selector": map[string]any{}}), "spec.selector"},
		{"In without values", spec(map[string]any{"selector": expression("app", "In")}),
			"spec.selector.matchExpressions[0].values"},
		{"Exists with values", spec(map[string]any{"selector": expression("app", "Exists", "web")}),
			"spec.selector.matchExpressions[0].values"},
		{"a selector key with a space", spec(map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"my app": "web"}}}),
			"spec.selector.matchLabels"},
		{"a selector value of 64 characters", spec(map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"app": strings.Repeat("w", 64)}}}),
			"spec.selector.matchLabels"},
		{"an expression key that is no label key", spec(map[string]any{"selector": expression("-app", "Exists")}),
			"spec.selector.matchExpressions[0].key"},
		{"a namespace selector operator that does not exist", spec(map[string]any{"namespaceSelector": expression("team", "Like", "a")}),
			"spec.namespaceSelector.matchExpressions[0].operator"},
		{"a namespace selector key with a space", spec(map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"my team": "a"}}}),
			"spec.namespaceSelector.matchLabels"},
		{"no containers", spec(map[string]any{"containers": nil}), "spec.containers"},
		{"an empty list of containers", spec(map[string]any{"containers": []any{}}), "spec.containers"},
		{"a container without a name", containers(proxy(map[string]any{"name": nil})), "spec.containers[0].name"},
		{"an empty container name", containers(proxy(map[string]any{"name": ""})), "spec.containers[0].name"},
		{"a container name in capitals", containers(proxy(map[string]any{"name": "Proxy"})), "spec.containers[0].name"},
		{"a container name with an underscore", containers(proxy(map[string]any{"name": "log_shipper"})), "spec.containers[0].name"},
		{"a container name of 64 characters", containers(proxy(map[string]any{"name": strings.Repeat("p", 64)})), "spec.containers[0].name"},
		{"two containers of one name", containers(proxy(nil), proxy(nil)), "spec.containers[1].name"},
		{"a container without an image", containers(proxy(map[string]any{"image": nil})), "spec.containers[0].image"},
		{"an image of spaces", containers(proxy(map[string]any{"image": "   "})), "spec.containers[0].image"},
		{"a bad second container", containers(proxy(nil), proxy(map[string]any{"name": "logs", "image": ""})), "spec.containers[1].image"},
		{"a mount without a volume name", containers(proxy(map[string]any{"volumeMounts": []any{mount("", "/etc/envoy")}})),
			"spec.containers[0].volumeMounts[0].name"},
		{"a mount without a path", containers(proxy(map[string]any{"volumeMounts": []any{mount("config", "")}})),
			"spec.containers[0].volumeMounts[0].mountPath"},
		// volumeMounts is a list keyed by mountPath in the schema: a second entry is a duplicate.
		{"two mounts at one path", containers(proxy(map[string]any{"volumeMounts": []any{mount("a", "/etc/envoy"), mount("b", "/etc/envoy")}})),
			"spec.containers[0].volumeMounts[1]"},
		{"a mount over the service account token", containers(proxy(map[string]any{"volumeMounts": []any{mount("a", ReservedMountPath)}})),
			"spec.containers[0].volumeMounts[0].mountPath"},
		{"the same, with a trailing slash", containers(proxy(map[string]any{"volumeMounts": []any{mount("a", ReservedMountPath+"/")}})),
			"spec.containers[0].volumeMounts[0].mountPath"},
		{"a host port", containers(proxy(map[string]any{"ports": []any{map[string]any{"containerPort": 15001, "hostPort": 15001}}})),
			"spec.containers[0].ports[0].hostPort"},
		{"a sidecar that restarts Never", containers(proxy(map[string]any{"restartPolicy": "Never"})),
			"spec.containers[0].restartPolicy"},
		{"a container port that is text", containers(proxy(map[string]any{"ports": []any{map[string]any{"containerPort": "envoy"}}})),
			"spec.containers[0].ports[0].containerPort"},
		{"an environment variable without a name", containers(proxy(map[string]any{"env": []any{map[string]any{"value": "1"}}})),
			"spec.containers[0].env[0].name"},
		{"a resource quantity that is no quantity", containers(proxy(map[string]any{"resources": map[string]any{"limits": map[string]any{"cpu": "lots"}}})),
			"spec.containers[0].resources.limits.cpu"},
		{"an empty volume name", volumes(""), "spec.volumes[0].name"},
		{"a volume name in capitals", volumes("Config"), "spec.volumes[0].name"},
		{"a volume name of the service account token", volumes(ReservedVolumePrefix + "abcde"), "spec.volumes[0].name"},
		{"two volumes of one name", volumes("config", "config"), "spec.volumes[1].name"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			set := &unstructured.Unstructured{Object: map[string]any{"spec": tt.spec}}
			set.SetGroupVersionKind(sidecarsv1.GroupVersion.WithKind("SidecarSet"))
			set.SetName(fmt.Sprintf("%s-%d", newCase("malformed"), i))
			err := env.Client.Create(env.Context(), set)
			g.Expect(err).To(HaveOccurred(), "a SidecarSet with %s should be refused", tt.name)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "the refusal should be Invalid (422), got: %v", err)
			g.Expect(causeFields(err)).To(ContainElement(tt.field),
				"the refusal of a SidecarSet with %s should name the field %s; got: %v", tt.name, tt.field, err)
		})
	}
}

func TestTheSamplesAreAdmitted(t *testing.T) {
	g := NewWithT(t)
	env.WebhookNamespace(t)
	for _, name := range []string{"sidecars_v1_sidecarset.yaml", "metrics_sidecarset.yaml"} {
		file, err := os.Open(filepath.Join("..", "..", "..", "config", "samples", name))
		g.Expect(err).NotTo(HaveOccurred())
		var set sidecarsv1.SidecarSet
		g.Expect(yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&set)).To(Succeed())
		file.Close()
		set.Name = newCase("sample")
		g.Expect(env.Client.Create(env.Context(), &set)).To(Succeed(), "the sample %s", name)
		g.Expect(env.Client.Delete(env.Context(), &set)).To(Succeed())
	}
}
