package v1

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/sidecars"
)

// The bad sample is refused by the API server, every problem in one answer; an update
// is checked like a create.
func TestTheAPIServerRefusesBadSidecarSets(t *testing.T) {
	g := NewWithT(t)
	env.WebhookNamespace(t)
	var bad sidecarsv1.SidecarSet
	g.Expect(testenv.ReadSample("bad_sidecarset.yaml", &bad)).To(Succeed())

	err := env.Client().Create(env.Context(), &bad)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "the bad sample should be refused as Invalid, got %v", err)
	g.Expect(testenv.CauseFields(err)).To(Equal([]string{
		"spec.selector.matchExpressions[0].operator",
		"spec.volumes[0].name",
		"spec.containers[0].volumeMounts[0].mountPath",
		"spec.containers[1].name",
	}), "every problem in one answer, each with its field: %v", err)
	g.Expect(apierrors.IsNotFound(env.Client().Get(env.Context(), client.ObjectKeyFromObject(&bad), &sidecarsv1.SidecarSet{}))).
		To(BeTrue(), "nothing should be stored")

	good := newSidecarSet(newCase("update"), "x", []corev1.Container{sidecar("proxy")})
	createSidecarSet(t, g, good)
	good.Spec.Containers = append(good.Spec.Containers, sidecar("proxy"))
	err = env.Client().Update(env.Context(), good)
	g.Expect(testenv.CauseFields(err)).To(Equal([]string{"spec.containers[1].name"}), "an update is checked like a create")
}

// Malformed SidecarSets, sent as JSON through the real API server: each must be refused
// as Invalid, with a cause naming the field at fault. Some are the CRD schema's to refuse
// (types, required fields), the others the validating webhook's; either way the user
// learns which field to fix.
func TestMalformedSidecarSetsAreRefusedWithTheirField(t *testing.T) {
	env.WebhookNamespace(t) // waits for the webhook server
	proxy := func(fields map[string]any) map[string]any {
		return overridden(map[string]any{"name": "proxy", "image": "envoyproxy/envoy:v1.36"}, fields)
	}
	spec := func(fields map[string]any) map[string]any {
		return overridden(map[string]any{
			"selector":   map[string]any{"matchLabels": map[string]any{"app": "web"}},
			"containers": []any{proxy(nil)},
		}, fields)
	}
	selector := func(s map[string]any) map[string]any { return spec(map[string]any{"selector": s}) }
	namespaceSelector := func(s map[string]any) map[string]any { return spec(map[string]any{"namespaceSelector": s}) }
	matchLabels := func(key, value string) map[string]any {
		return map[string]any{"matchLabels": map[string]any{key: value}}
	}
	containers := func(c ...map[string]any) map[string]any { return spec(map[string]any{"containers": list(c...)}) }
	expression := func(key, operator string, values ...any) map[string]any {
		e := map[string]any{"key": key, "operator": operator}
		if values != nil {
			e["values"] = values
		}
		return map[string]any{"matchExpressions": []any{e}}
	}
	mount := func(name, path string) map[string]any { return map[string]any{"name": name, "mountPath": path} }
	volumes := func(names ...string) map[string]any {
		volumes := make([]any, len(names))
		for i, name := range names {
			volumes[i] = map[string]any{"name": name, "emptyDir": map[string]any{}}
		}
		return spec(map[string]any{"volumes": volumes})
	}

	tests := []struct {
		name  string
		spec  map[string]any
		field string
	}{
		{"no selector", selector(nil), "spec.selector"},
		{"a selector operator that does not exist", selector(expression("app", "Within", "web")), "spec.selector.matchExpressions[0].operator"},
		{"an empty selector", selector(map[string]any{}), "spec.selector"},
		{"In without values", selector(expression("app", "In")), "spec.selector.matchExpressions[0].values"},
		{"Exists with values", selector(expression("app", "Exists", "web")), "spec.selector.matchExpressions[0].values"},
		{"a selector key with a space", selector(matchLabels("my app", "web")), "spec.selector.matchLabels"},
		{"a selector value of 64 characters", selector(matchLabels("app", strings.Repeat("w", 64))), "spec.selector.matchLabels"},
		{"an expression key that is no label key", selector(expression("-app", "Exists")), "spec.selector.matchExpressions[0].key"},
		{"a namespace selector operator that does not exist", namespaceSelector(expression("team", "Like", "a")),
			"spec.namespaceSelector.matchExpressions[0].operator"},
		{"a namespace selector key with a space", namespaceSelector(matchLabels("my team", "a")), "spec.namespaceSelector.matchLabels"},
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
			err := createAsJSON(fmt.Sprintf("%s-%d", newCase("malformed"), i), tt.spec)
			g.Expect(err).To(HaveOccurred(), "a SidecarSet with %s should be refused", tt.name)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "the refusal should be Invalid (422), got: %v", err)
			g.Expect(testenv.CauseFields(err)).To(ContainElement(tt.field),
				"the refusal of a SidecarSet with %s should name the field %s; got: %v", tt.name, tt.field, err)
		})
	}
}

func TestTheSamplesAreAdmitted(t *testing.T) {
	g := NewWithT(t)
	env.WebhookNamespace(t)
	for _, name := range []string{"sidecars_v1_sidecarset.yaml", "metrics_sidecarset.yaml"} {
		var set sidecarsv1.SidecarSet
		g.Expect(testenv.ReadSample(name, &set)).To(Succeed())
		set.Name = newCase("sample")
		g.Expect(env.Client().Create(env.Context(), &set)).To(Succeed(), "the sample %s", name)
		g.Expect(env.Client().Delete(env.Context(), &set)).To(Succeed())
	}
}

// Sidecars the API server's pod validation refuses, sent through the real API server:
// the validating webhook asks it about a pod with the sidecars (a dry run) and refuses
// each SidecarSet at the field of its own that the pod's refusal comes from. None of
// these rules is the webhook's: each would otherwise make every pod the SidecarSet
// selects refused, and stop its ReplicaSets, Jobs and DaemonSets.
func TestSidecarsThePodValidationRefusesAreRefusedWithTheirField(t *testing.T) {
	env.WebhookNamespace(t) // waits for the webhook server
	proxy := func(fields map[string]any) map[string]any {
		c := map[string]any{"name": "proxy", "image": "envoyproxy/envoy:v1.36"}
		maps.Copy(c, fields)
		return c
	}
	resources := func(kind, name, quantity string, more ...string) map[string]any {
		r := map[string]any{kind: map[string]any{name: quantity}}
		if len(more) == 3 {
			r[more[0]] = map[string]any{more[1]: more[2]}
		}
		return map[string]any{"resources": r}
	}
	tcp := map[string]any{"tcpSocket": map[string]any{"port": 15001}}
	probe := func(kind string, fields map[string]any) map[string]any {
		p := map[string]any{}
		maps.Copy(p, fields)
		return map[string]any{kind: p}
	}
	with := func(base map[string]any, k string, v any) map[string]any {
		m := map[string]any{k: v}
		maps.Copy(m, base)
		return m
	}
	port := func(fields ...map[string]any) map[string]any { return map[string]any{"ports": list(fields...)} }
	envVar := func(e map[string]any) map[string]any { return map[string]any{"env": []any{e}} }
	mount := func(fields map[string]any) map[string]any {
		return map[string]any{"volumeMounts": []any{with(with(fields, "name", "data"), "mountPath", "/data")}}
	}
	security := func(fields map[string]any) map[string]any { return map[string]any{"securityContext": fields} }
	localhost := map[string]any{"type": "Localhost"}

	tests := []struct {
		name     string
		sidecars []any
		field    string
	}{
		{"imagePullPolicy: always", []any{proxy(map[string]any{"imagePullPolicy": "always"})}, "spec.containers[0].imagePullPolicy"},
		{"an image with a leading space", []any{proxy(map[string]any{"image": " envoyproxy/envoy:v1.36"})}, "spec.containers[0].image"},
		{"cpu requests above the limit", []any{proxy(resources("requests", "cpu", "2", "limits", "cpu", "1"))}, "spec.containers[0].resources.requests"},
		{"memory requests above the limit", []any{proxy(resources("requests", "memory", "2Gi", "limits", "memory", "1Gi"))}, "spec.containers[0].resources.requests"},
		{"ephemeral storage requests above the limit", []any{proxy(resources("requests", "ephemeral-storage", "2Gi", "limits", "ephemeral-storage", "1Gi"))}, "spec.containers[0].resources.requests"},
		{"a negative memory limit", []any{proxy(resources("limits", "memory", "-1Gi"))}, "spec.containers[0].resources.limits[memory]"},
		{"a resource name without a domain", []any{proxy(resources("limits", "gpu", "1"))}, "spec.containers[0].resources.limits[gpu]"},
		{"huge pages that are no multiple of their size", []any{proxy(resources("limits", "hugepages-2Mi", "1Mi"))}, "spec.containers[0].resources.limits[hugepages-2Mi]"},
		{"a resource claim the pod does not have", []any{proxy(map[string]any{"resources": map[string]any{"claims": []any{map[string]any{"name": "gpu"}}}})}, "spec.containers[0].resources.claims[0]"},
		{"a liveness probe without a handler", []any{proxy(probe("livenessProbe", map[string]any{"periodSeconds": 10}))}, "spec.containers[0].livenessProbe"},
		{"a readiness probe without a handler", []any{proxy(probe("readinessProbe", nil))}, "spec.containers[0].readinessProbe"},
		{"a startup probe without a handler", []any{proxy(probe("startupProbe", map[string]any{"failureThreshold": 3}))}, "spec.containers[0].startupProbe"},
		{"a probe with two handlers", []any{proxy(probe("livenessProbe", with(tcp, "exec", map[string]any{"command": []any{"true"}})))}, "spec.containers[0].livenessProbe.tcpSocket"},
		{"a negative probe period", []any{proxy(probe("readinessProbe", with(tcp, "periodSeconds", -1)))}, "spec.containers[0].readinessProbe.periodSeconds"},
		{"a liveness probe that must succeed twice", []any{proxy(probe("livenessProbe", with(tcp, "successThreshold", 2)))}, "spec.containers[0].livenessProbe.successThreshold"},
		{"a probe's grace period of 0", []any{proxy(probe("livenessProbe", with(tcp, "terminationGracePeriodSeconds", 0)))}, "spec.containers[0].livenessProbe.terminationGracePeriodSeconds"},
		{"an HTTP probe of port 0", []any{proxy(probe("readinessProbe", map[string]any{"httpGet": map[string]any{"port": 0}}))}, "spec.containers[0].readinessProbe.httpGet.port"},
		{"an HTTP probe of scheme FTP", []any{proxy(probe("livenessProbe", map[string]any{"httpGet": map[string]any{"port": 80, "scheme": "FTP"}}))}, "spec.containers[0].livenessProbe.httpGet.scheme"},
		{"a gRPC probe of port 0", []any{proxy(probe("livenessProbe", map[string]any{"grpc": map[string]any{"port": 0}}))}, "spec.containers[0].livenessProbe.grpc.port"},
		{"a container port 0", []any{proxy(port(map[string]any{"containerPort": 0}))}, "spec.containers[0].ports[0].containerPort"},
		{"a container port above 65535", []any{proxy(port(map[string]any{"containerPort": 70000}))}, "spec.containers[0].ports[0].containerPort"},
		{"a protocol that does not exist", []any{proxy(port(map[string]any{"containerPort": 80, "protocol": "TCPX"}))}, "spec.containers[0].ports[0].protocol"},
		{"two ports of one name", []any{proxy(port(map[string]any{"containerPort": 80, "name": "web"}, map[string]any{"containerPort": 81, "name": "web"}))}, "spec.containers[0].ports[1].name"},
		{"a port name of 16 characters", []any{proxy(port(map[string]any{"containerPort": 80, "name": "sixteen-letters1"}))}, "spec.containers[0].ports[0].name"},
		{"an environment variable named with =", []any{proxy(envVar(map[string]any{"name": "A=B", "value": "x"}))}, "spec.containers[0].env[0].name"},
		{"an environment variable with a value and a source", []any{proxy(envVar(map[string]any{"name": "A", "value": "x",
			"valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "metadata.name"}}}))}, "spec.containers[0].env[0].valueFrom"},
		{"an environment variable's source of nothing", []any{proxy(envVar(map[string]any{"name": "A", "valueFrom": map[string]any{}}))}, "spec.containers[0].env[0].valueFrom"},
		{"an environment variable of a field pods do not have", []any{proxy(envVar(map[string]any{"name": "A",
			"valueFrom": map[string]any{"fieldRef": map[string]any{"fieldPath": "spec.nothing"}}}))}, "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath"},
		{"envFrom of nothing", []any{proxy(map[string]any{"envFrom": []any{map[string]any{"prefix": "X_"}}})}, "spec.containers[0].envFrom"},
		// The API server names these without the mount's index.
		{"a subPath that is absolute", []any{proxy(mount(map[string]any{"subPath": "/etc"}))}, "spec.containers[0].volumeMounts.subPath"},
		{"a subPath that goes up", []any{proxy(mount(map[string]any{"subPath": "../etc"}))}, "spec.containers[0].volumeMounts.subPath"},
		{"a mount propagation that does not exist", []any{proxy(mount(map[string]any{"mountPropagation": "Sideways"}))}, "spec.containers[0].volumeMounts.mountPropagation"},
		{"a recursive read-only mount that is not read-only", []any{proxy(mount(map[string]any{"recursiveReadOnly": "Enabled"}))}, "spec.containers[0].volumeMounts.recursiveReadOnly"},
		{"a termination message policy that does not exist", []any{proxy(map[string]any{"terminationMessagePolicy": "Sometimes"})}, "spec.containers[0].terminationMessagePolicy"},
		{"runAsUser -1", []any{proxy(security(map[string]any{"runAsUser": -1}))}, "spec.containers[0].securityContext.runAsUser"},
		{"a procMount that does not exist", []any{proxy(security(map[string]any{"procMount": "Weird"}))}, "spec.containers[0].securityContext.procMount"},
		{"a Localhost seccomp profile without its file", []any{proxy(security(map[string]any{"seccompProfile": localhost}))}, "spec.containers[0].securityContext.seccompProfile.localhostProfile"},
		{"a Localhost AppArmor profile without its name", []any{proxy(security(map[string]any{"appArmorProfile": localhost}))}, "spec.containers[0].securityContext.appArmorProfile.localhostProfile"},
		{"a preStop hook without a handler", []any{proxy(map[string]any{"lifecycle": map[string]any{"preStop": map[string]any{}}})}, "spec.containers[0].lifecycle.preStop"},
		{"a preStop sleep of -1 seconds", []any{proxy(map[string]any{"lifecycle": map[string]any{"preStop": map[string]any{"sleep": map[string]any{"seconds": -1}}}})}, "spec.containers[0].lifecycle.preStop.sleep"},
		{"a resize policy for a resource that cannot resize", []any{proxy(map[string]any{"resizePolicy": []any{map[string]any{"resourceName": "gpu", "restartPolicy": "NotRequired"}}})}, "spec.containers[0].resizePolicy"},
		{"a restart rule without exit codes", []any{proxy(map[string]any{"restartPolicyRules": []any{map[string]any{"action": "Restart"}}})}, "spec.containers[0].restartPolicyRules[0].exitCodes"},
		{"the same mistake in the second sidecar", []any{proxy(nil), map[string]any{"name": "agent", "image": "busybox:1.37", "imagePullPolicy": "always"}},
			"spec.containers[1].imagePullPolicy"},
		{"a host process among other containers: the pod as a whole", []any{proxy(security(map[string]any{"windowsOptions": map[string]any{"hostProcess": true}}))}, "spec.containers"},
	}
	g := NewWithT(t)
	g.Expect(len(tests)).To(BeNumerically(">=", 25))
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := createAsJSON(fmt.Sprintf("%s-%d", newCase("pod-rules"), i), map[string]any{
				"selector":   map[string]any{"matchLabels": map[string]any{"app": "web"}},
				"containers": tt.sidecars,
			})
			g.Expect(err).To(HaveOccurred(), "a SidecarSet with %s should be refused: every pod it selects would be", tt.name)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "the refusal should be Invalid (422), got: %v", err)
			g.Expect(testenv.CauseFields(err)).To(ContainElement(tt.field),
				"the refusal of a SidecarSet with %s should name the field %s; got: %v", tt.name, tt.field, err)
		})
	}
}

// A volume the API server refuses in a pod is refused at the SidecarSet's field too.
func TestVolumesThePodValidationRefusesAreRefusedWithTheirField(t *testing.T) {
	env.WebhookNamespace(t)
	g := NewWithT(t)
	err := createAsJSON(newCase("volume-rules"), map[string]any{
		"selector":   map[string]any{"matchLabels": map[string]any{"app": "web"}},
		"containers": []any{map[string]any{"name": "proxy", "image": "envoyproxy/envoy:v1.36"}},
		"volumes": []any{
			map[string]any{"name": "config", "emptyDir": map[string]any{}},
			map[string]any{"name": "twice", "emptyDir": map[string]any{}, "configMap": map[string]any{"name": "x"}},
		},
	})
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "a volume of two sources should be refused as Invalid, got: %v", err)
	g.Expect(testenv.CauseFields(err)).To(ContainElement(HavePrefix("spec.volumes[1]")), "the refusal should name the second volume: %v", err)
}

// createAsJSON sends a SidecarSet of spec, written as JSON decodes into Go, to the API
// server, as kubectl does: through the CRD schema's checks and then the webhook's. It
// returns the API server's answer.
func createAsJSON(name string, spec map[string]any) error {
	set := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	set.SetGroupVersionKind(sidecarsv1.GroupVersion.WithKind("SidecarSet"))
	set.SetName(name)
	return env.Client().Create(env.Context(), set)
}

// overridden returns base with fields written over it, less the fields whose value is
// nil: a nil in fields removes the field.
func overridden(base, fields map[string]any) map[string]any {
	maps.Copy(base, fields)
	maps.DeleteFunc(base, func(_ string, v any) bool { return v == nil })
	return base
}

// list returns items as the []any of a JSON array decoded into Go.
func list[T any](items ...T) []any {
	out := make([]any, len(items))
	for i, item := range items {
		out[i] = item
	}
	return out
}

// The manager's generated RBAC (config/rbac/role.yaml, from the markers) lets it dry-run
// pods in its own namespace, which the SidecarSet webhook needs, and nowhere else: a dry
// run needs the verb create, which is also the right to create pods for real.
func TestTheManagersRoleLetsItDryRunPodsInItsNamespaceOnly(t *testing.T) {
	env.WebhookNamespace(t)
	g := NewWithT(t)
	rolePath := filepath.Join("..", "..", "..", "..", "config", "rbac", "role.yaml")
	cfg := env.AsRole(t, rolePath, "")
	user := cfg.Impersonate.UserName

	// The second document: the Role the namespace=system marker makes, bound, as
	// config/rbac/role_binding.yaml binds it, in the manager's namespace.
	data, err := os.ReadFile(rolePath)
	g.Expect(err).NotTo(HaveOccurred())
	docs := strings.Split(string(data), "\n---\n")
	g.Expect(docs).To(HaveLen(2), "role.yaml should hold the ClusterRole and the Role of the manager's namespace")
	var role rbacv1.Role
	g.Expect(yaml.Unmarshal([]byte(docs[1]), &role)).To(Succeed())
	g.Expect(role.Kind).To(Equal("Role"))
	role.ObjectMeta = metav1.ObjectMeta{Namespace: sidecars.DefaultManagerNamespace, Name: newCase("manager-role")}
	g.Expect(env.Client().Create(env.Context(), &role)).To(Succeed())
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), &role) })
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: role.Namespace, Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	g.Expect(env.Client().Create(env.Context(), binding)).To(Succeed())
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), binding) })

	manager, err := client.New(cfg, client.Options{Scheme: env.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	validator := &SidecarSetCustomValidator{Pods: manager, Namespace: sidecars.DefaultManagerNamespace}
	set := newSidecarSet(newCase("rbac"), "x", []corev1.Container{sidecar("log-shipper")})
	g.Eventually(func() error {
		_, err := validator.ValidateCreate(env.Context(), set)
		return err
	}).Should(Succeed(), "the manager's roles should let it dry-run a pod in its namespace")

	elsewhere := newPod(metav1.NamespaceDefault, "elsewhere", "x")
	err = manager.Create(env.Context(), elsewhere, client.DryRunAll)
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "the manager should create no pod outside its namespace, got: %v", err)
	validator.Namespace = metav1.NamespaceDefault
	_, err = validator.ValidateCreate(env.Context(), set)
	g.Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue(), "a dry run that cannot be made refuses the SidecarSet as unchecked, got: %v", err)
	g.Expect(err).To(MatchError(ContainSubstring("could not be checked")))
}
