package v1

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/api/nodes/v1"
)

const (
	validatingWebhook = "vnodepool-v1.kb.io"
	// validatingConfiguration is the configuration envtest installed from
	// config/webhook/manifests.yaml.
	validatingConfiguration = "validating-webhook-configuration"
	// bySchema, for testenv.ExpectRefusedBy, is a refusal by the CRD's schema or its
	// CEL rules.
	bySchema = ""
)

func newNodePool(name string, spec nodesv1.NodePoolSpec) *nodesv1.NodePool {
	return &nodesv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}
}

// unstructuredNodePool is a NodePool with exactly the spec given: no Go type adds or
// drops a field on the way to the API server.
func unstructuredNodePool(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": nodesv1.GroupVersion.String(),
		"kind":       "NodePool",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
}

// stored reads the pool named name straight from the API server: what it stored,
// defaults included.
func stored(g Gomega, name string) *nodesv1.NodePool {
	var got nodesv1.NodePool
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKey{Name: name}, &got)).To(Succeed())
	return &got
}

var goodLabels = map[string]any{"node-pool.workshop.dev/tier": "gold"}

func TestDefaultsAreStored(t *testing.T) {
	env.WaitForWebhooks(t)
	tests := []struct {
		name        string
		spec        map[string]any
		wantHandler string
		wantEffects []corev1.TaintEffect
	}{
		{"no handler: the schema's default", map[string]any{"labels": goodLabels},
			"runc", nil},
		{"an empty handler: the webhook's default", map[string]any{"labels": goodLabels, "handler": ""},
			"runc", nil},
		{"a handler the user chose", map[string]any{"labels": goodLabels, "handler": "kata"},
			"kata", nil},
		{"a taint without an effect", map[string]any{"labels": goodLabels,
			"taints": []any{map[string]any{"key": "node-pool.workshop.dev", "value": "gpu"}}},
			"runc", []corev1.TaintEffect{corev1.TaintEffectNoSchedule}},
		{"a taint with an empty effect", map[string]any{"labels": goodLabels,
			"taints": []any{map[string]any{"key": "node-pool.workshop.dev", "effect": ""}}},
			"runc", []corev1.TaintEffect{corev1.TaintEffectNoSchedule}},
		{"taints with effects keep them", map[string]any{"labels": goodLabels, "taints": []any{
			map[string]any{"key": "node-pool.workshop.dev", "effect": "PreferNoSchedule"},
			map[string]any{"key": "node-pool.workshop.dev"},
		}}, "runc", []corev1.TaintEffect{corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoSchedule}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			name := fmt.Sprintf("defaults-%d", i)
			g.Expect(env.Client().Create(env.Context(), unstructuredNodePool(name, tt.spec))).To(Succeed(),
				"the API server should admit a NodePool with %s", tt.name)
			got := stored(g, name)
			g.Expect(got.Spec.Handler).To(Equal(tt.wantHandler), "the stored spec.handler")
			var effects []corev1.TaintEffect
			for _, taint := range got.Spec.Taints {
				effects = append(effects, taint.Effect)
			}
			g.Expect(effects).To(Equal(tt.wantEffects), "the stored effects of spec.taints")
		})
	}
}

func TestTheAPIServerRefusesBadNodePools(t *testing.T) {
	env.WaitForWebhooks(t)
	taints := func(taints ...map[string]any) map[string]any {
		list := make([]any, len(taints))
		for i, t := range taints {
			list[i] = t
		}
		return map[string]any{"labels": goodLabels, "taints": list}
	}
	tests := []struct {
		name string
		spec map[string]any
		// refusedBy is the validating webhook that refuses the spec, or bySchema for
		// what the CRD's schema and CEL rules refuse before any validating webhook is
		// called.
		refusedBy string
		field     string
		message   string
	}{
		{"a label key with a space", map[string]any{"labels": map[string]any{"bad key": "x"}}, bySchema,
			"spec.labels", "every key must be a label key"},
		{"a membership label", map[string]any{"labels": map[string]any{"node-role.kubernetes.io/other": ""}}, bySchema,
			"spec.labels", "node-role.kubernetes.io/ labels decide which pools a node belongs to"},
		{"a label key whose prefix is too long", map[string]any{"labels": map[string]any{strings.Repeat("a", 254) + "/x": ""}}, validatingWebhook,
			"spec.labels[" + strings.Repeat("a", 254) + "/x]", "prefix part must be no more than 253 bytes"},
		{"a label under kubernetes.io", map[string]any{"labels": map[string]any{"kubernetes.io/hostname": "pool"}}, validatingWebhook,
			"spec.labels[kubernetes.io/hostname]", "the prefix kubernetes.io/ is reserved for Kubernetes"},
		{"a label under node.kubernetes.io", map[string]any{"labels": map[string]any{"node.kubernetes.io/instance-type": "big"}}, validatingWebhook,
			"spec.labels[node.kubernetes.io/instance-type]", "the prefix node.kubernetes.io/ is reserved for Kubernetes"},
		{"a label under k8s.io", map[string]any{"labels": map[string]any{"k8s.io/pool": "gpu"}}, validatingWebhook,
			"spec.labels[k8s.io/pool]", "the prefix k8s.io/ is reserved for Kubernetes"},
		{"a label value with a space", map[string]any{"labels": map[string]any{"node-pool.workshop.dev/tier": "gold plated"}}, validatingWebhook,
			"spec.labels[node-pool.workshop.dev/tier]", `Invalid value: "gold plated": a valid label must be an empty string or consist of alphanumeric characters`},
		{"a label value that is too long", map[string]any{"labels": map[string]any{"node-pool.workshop.dev/tier": strings.Repeat("g", 64)}}, validatingWebhook,
			"spec.labels[node-pool.workshop.dev/tier]", "must be no more than 63 bytes"},
		{"a taint key with a space", taints(map[string]any{"key": "dedicated pool", "effect": "NoSchedule"}), validatingWebhook,
			"spec.taints[0].key", `Invalid value: "dedicated pool": name part must consist of alphanumeric characters`},
		{"an empty taint key", taints(map[string]any{"key": "", "effect": "NoSchedule"}), validatingWebhook,
			"spec.taints[0].key", "Required value"},
		{"a taint under node.kubernetes.io", taints(map[string]any{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}), validatingWebhook,
			"spec.taints[0].key", "the prefix node.kubernetes.io/ is reserved for Kubernetes"},
		{"a taint value with a slash", taints(map[string]any{"key": "dedicated", "value": "gpu/a100", "effect": "NoSchedule"}), validatingWebhook,
			"spec.taints[0].value", `Invalid value: "gpu/a100"`},
		{"an unknown effect", taints(map[string]any{"key": "dedicated", "effect": "NoScheduling"}), bySchema,
			"spec.taints", "every effect must be NoSchedule, PreferNoSchedule or NoExecute"},
		{"the same key and effect twice", taints(
			map[string]any{"key": "dedicated", "value": "a", "effect": "NoSchedule"},
			map[string]any{"key": "dedicated", "value": "b", "effect": "NoSchedule"}), bySchema,
			"spec.taints[1]", "Duplicate value"},
		// The defaulting webhook runs before the schema: the effect it fills in makes the
		// second taint a duplicate of the first.
		{"a taint that the default effect makes a duplicate", taints(
			map[string]any{"key": "dedicated", "effect": "NoSchedule"},
			map[string]any{"key": "dedicated"}), bySchema,
			"spec.taints[1]", "Duplicate value"},
		{"a handler that is no DNS label", map[string]any{"labels": goodLabels, "handler": "Kata"}, bySchema,
			"spec.handler", "should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			name := fmt.Sprintf("bad-%d", i)
			err := env.Client().Create(env.Context(), unstructuredNodePool(name, tt.spec))
			testenv.ExpectInvalid(g, err, tt.field, tt.message)
			testenv.ExpectRefusedBy(g, err, tt.refusedBy)
		})
	}
}

// All of a pool's problems the webhook finds come back at once, so that the user fixes
// them in one go.
func TestEveryProblemIsReportedInOneAnswer(t *testing.T) {
	env.WaitForWebhooks(t)
	g := NewWithT(t)
	pool := newNodePool("many", nodesv1.NodePoolSpec{
		Labels: map[string]string{"kubernetes.io/hostname": "pool", "node-pool.workshop.dev/tier": "not valid!"},
		Taints: []corev1.Taint{{Key: "dedicated pool", Value: "gpu/a100", Effect: corev1.TaintEffectNoSchedule}},
	})
	err := env.Client().Create(env.Context(), pool)
	g.Expect(err).To(HaveOccurred())
	g.Expect(testenv.Causes(err)).To(ConsistOf(
		HaveField("Field", "spec.labels[kubernetes.io/hostname]"),
		testenv.HaveCause("spec.labels[node-pool.workshop.dev/tier]", `"not valid!"`),
		testenv.HaveCause("spec.taints[0].key", `"dedicated pool"`),
		testenv.HaveCause("spec.taints[0].value", `"gpu/a100"`),
	), "one cause per problem; got: %v", err)
}

func TestUpdatesAreValidatedToo(t *testing.T) {
	env.WaitForWebhooks(t)
	g := NewWithT(t)
	ctx := env.Context()
	pool := newNodePool("update", nodesv1.NodePoolSpec{Labels: map[string]string{"node-pool.workshop.dev/tier": "gold"}})
	g.Expect(env.Client().Create(ctx, pool)).To(Succeed())

	tests := []struct {
		name    string
		patch   string
		field   string
		message string
	}{
		{"a bad label value", `{"spec":{"labels":{"node-pool.workshop.dev/tier":"not valid!"}}}`,
			"spec.labels[node-pool.workshop.dev/tier]", `Invalid value: "not valid!"`},
		{"a label under a reserved prefix", `{"spec":{"labels":{"topology.kubernetes.io/zone":"a"}}}`,
			"spec.labels[topology.kubernetes.io/zone]", "the prefix topology.kubernetes.io/ is reserved"},
		{"a bad taint key", `{"spec":{"taints":[{"key":"-dedicated","effect":"NoSchedule"}]}}`,
			"spec.taints[0].key", "name part must consist of alphanumeric characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := env.Client().Patch(ctx, stored(g, pool.Name), client.RawPatch("application/merge-patch+json", []byte(tt.patch)))
			testenv.ExpectInvalid(g, err, tt.field, tt.message)
		})
	}
	got := stored(g, pool.Name)
	g.Expect(got.Spec.Labels).To(Equal(pool.Spec.Labels), "a refused update changes nothing")
	g.Expect(got.Generation).To(BeEquivalentTo(1), "a refused update changes nothing")
}

func TestUpdatesAreDefaultedToo(t *testing.T) {
	env.WaitForWebhooks(t)
	g := NewWithT(t)
	ctx := env.Context()
	pool := newNodePool("update-defaults", nodesv1.NodePoolSpec{Handler: "kata", Labels: map[string]string{"node-pool.workshop.dev/tier": "gold"}})
	g.Expect(env.Client().Create(ctx, pool)).To(Succeed())

	patch := []byte(`{"spec":{"handler":"","taints":[{"key":"node-pool.workshop.dev","value":"gpu"}]}}`)
	g.Expect(env.Client().Patch(ctx, pool, client.RawPatch("application/merge-patch+json", patch))).To(Succeed())
	got := stored(g, pool.Name)
	g.Expect(got.Spec.Handler).To(Equal("runc"), "an update to an empty handler gets the default")
	g.Expect(got.Spec.Taints).To(ConsistOf(HaveField("Effect", corev1.TaintEffectNoSchedule)),
		"a taint added without an effect gets NoSchedule")
}

// The effect is part of a taint's identity (+listMapKey=effect), and server-side apply
// merges the applied taints into the stored ones by key and effect before any webhook
// runs. A manifest whose taint has no effect names another taint than the stored one,
// which the first apply defaulted to NoSchedule: applied again, it adds a second taint,
// which the default then makes a duplicate. Manifests applied server-side must write
// the effect.
func TestServerSideApplyNeedsTheEffect(t *testing.T) {
	env.WaitForWebhooks(t)
	g := NewWithT(t)
	ctx := env.Context()
	apply := func(taint map[string]any) error {
		pool := unstructuredNodePool("server-side", map[string]any{"labels": goodLabels, "taints": []any{taint}})
		return env.Client().Apply(ctx, client.ApplyConfigurationFromUnstructured(pool), client.FieldOwner("workshop-test"))
	}
	g.Expect(apply(map[string]any{"key": "node-pool.workshop.dev", "value": "a"})).To(Succeed(),
		"the first apply creates the pool, with the default effect")
	g.Expect(stored(g, "server-side").Spec.Taints).To(ConsistOf(HaveField("Effect", corev1.TaintEffectNoSchedule)))

	err := apply(map[string]any{"key": "node-pool.workshop.dev", "value": "b"})
	g.Expect(testenv.Causes(err)).To(ContainElement(testenv.HaveCause("spec.taints[1]", "Duplicate value")),
		"applied again without its effect, the taint is a second one; got: %v", err)

	g.Expect(apply(map[string]any{"key": "node-pool.workshop.dev", "value": "b", "effect": "NoSchedule"})).To(Succeed(),
		"with the effect written, the apply updates the stored taint")
	g.Expect(stored(g, "server-side").Spec.Taints).To(ConsistOf(HaveField("Value", "b")))
}

// A pool stored before the webhook existed (by lesson 07's manager, or while the
// configuration was missing) may break the rules. The controller's finalizer patches
// leave its spec alone and must still go through, or the pool could never be deleted;
// a change of its spec must fix it.
func TestAPoolStoredBeforeTheRulesCanStillBeDeleted(t *testing.T) {
	env.WaitForWebhooks(t)
	g := NewWithT(t)
	ctx := env.Context()
	c, recorder := env.ClientWithWarnings(g)
	pool := newNodePool("before-the-rules", nodesv1.NodePoolSpec{
		Labels: map[string]string{"kubernetes.io/hostname": "pool"},
		Taints: []corev1.Taint{{Key: "node-pool.workshop.dev", Effect: corev1.TaintEffectNoExecute}},
	})
	_, err := validateNodePool(pool)
	g.Expect(err).To(MatchError(ContainSubstring("spec.labels[kubernetes.io/hostname]")),
		"the test needs a pool the validator refuses; validateLabels should refuse kubernetes.io/hostname")
	env.CreateWithoutValidation(t, validatingConfiguration, validatingWebhook, pool)

	const finalizer = "nodes.workshop.dev/cleanup"
	patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":["`+finalizer+`"]}}`))
	g.Expect(c.Patch(ctx, stored(g, pool.Name), patch)).To(Succeed(), "a finalizer patch leaves the spec alone")
	g.Expect(recorder.Take()).To(BeEmpty(), "no warning about a spec the patch did not touch")

	patch = client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"labels":{"node-pool.workshop.dev/tier":"gold"}}}`))
	err = c.Patch(ctx, stored(g, pool.Name), patch)
	g.Expect(testenv.Causes(err)).To(ContainElement(HaveField("Field", "spec.labels[kubernetes.io/hostname]")),
		"a change of the spec must fix what the rules refuse; got: %v", err)

	g.Expect(c.Delete(ctx, stored(g, pool.Name))).To(Succeed())
	patch = client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
	g.Expect(c.Patch(ctx, stored(g, pool.Name), patch)).To(Succeed(), "the controller must be able to remove its finalizer")
	g.Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{}))
	}).Should(BeTrue(), "the pool is gone once its finalizer is")
}

func TestUnwiseNodePoolsAreAdmittedWithAWarning(t *testing.T) {
	env.WaitForWebhooks(t)
	noExecute := []corev1.Taint{{Key: "node-pool.workshop.dev", Value: "gpu", Effect: corev1.TaintEffectNoExecute}}
	labels := map[string]string{"node-pool.workshop.dev/tier": "gold"}
	tests := []struct {
		name     string
		spec     nodesv1.NodePoolSpec
		warnings []string
	}{
		{"labels and a NoSchedule taint", nodesv1.NodePoolSpec{Labels: labels,
			Taints: []corev1.Taint{{Key: "node-pool.workshop.dev", Effect: corev1.TaintEffectNoSchedule}}}, nil},
		{"a NoExecute taint", nodesv1.NodePoolSpec{Labels: labels, Taints: noExecute}, []string{
			"spec.taints[0]: the NoExecute taint node-pool.workshop.dev=gpu:NoExecute evicts, from every node that joins the pool, the running pods that do not tolerate it"}},
		{"no label", nodesv1.NodePoolSpec{}, []string{
			"spec.labels: the pool sets no label, so the RuntimeClass node-pool-warn-2 selects no node"}},
		{"no label and a NoExecute taint", nodesv1.NodePoolSpec{Taints: noExecute}, []string{
			"spec.taints[0]: the NoExecute taint", "spec.labels: the pool sets no label"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			c, recorder := env.ClientWithWarnings(g)
			g.Expect(c.Create(env.Context(), newNodePool(fmt.Sprintf("warn-%d", i), tt.spec))).To(Succeed(),
				"a NodePool with %s is allowed", tt.name)
			want := []any{}
			for _, w := range tt.warnings {
				want = append(want, HavePrefix(w))
			}
			g.Expect(recorder.Take()).To(ConsistOf(want...), "the warnings of the create of a NodePool with %s", tt.name)
		})
	}
}

func TestAnUpdateToANoExecuteTaintIsWarnedAbout(t *testing.T) {
	env.WaitForWebhooks(t)
	g := NewWithT(t)
	ctx := env.Context()
	c, recorder := env.ClientWithWarnings(g)
	pool := newNodePool("update-warn", nodesv1.NodePoolSpec{Labels: map[string]string{"node-pool.workshop.dev/tier": "gold"}})
	g.Expect(c.Create(ctx, pool)).To(Succeed())
	g.Expect(recorder.Take()).To(BeEmpty())

	patch := client.MergeFrom(pool.DeepCopy())
	pool.Spec.Taints = []corev1.Taint{{Key: "node-pool.workshop.dev", Effect: corev1.TaintEffectNoExecute}}
	g.Expect(c.Patch(ctx, pool, patch)).To(Succeed())
	g.Expect(recorder.Take()).To(ConsistOf(HavePrefix("spec.taints[0]: the NoExecute taint")),
		"an update to a NoExecute taint should come back with a warning")

	patch = client.MergeFrom(pool.DeepCopy())
	pool.Annotations = map[string]string{"example.com/owner": "team-a"}
	g.Expect(c.Patch(ctx, pool, patch)).To(Succeed())
	g.Expect(recorder.Take()).To(BeEmpty(), "an update that leaves the spec alone is not warned about")
}

// The samples are what the walkthrough and the docs use: each must meet its fate.
func TestTheSamples(t *testing.T) {
	env.WaitForWebhooks(t)
	tests := []struct {
		file string
		// fields are the causes of the refusal; nil when the sample is admitted.
		fields []string
	}{
		{"nodes_v1_nodepool.yaml", nil},
		{"bad_nodepool.yaml", []string{"spec.labels[kubernetes.io/hostname]", "spec.labels[node-pool.workshop.dev/tier]", "spec.taints[0].key"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			g := NewWithT(t)
			var sample nodesv1.NodePool
			g.Expect(testenv.ReadSample(tt.file, &sample)).To(Succeed())

			c, recorder := env.ClientWithWarnings(g)
			err := c.Create(env.Context(), &sample)
			if tt.fields != nil {
				g.Expect(testenv.CauseFields(err)).To(ConsistOf(tt.fields), "%s should be refused; got: %v", tt.file, err)
				return
			}
			g.Expect(err).NotTo(HaveOccurred(), "%s should be admitted", tt.file)
			g.Expect(recorder.Take()).To(BeEmpty(), "%s deserves no warning", tt.file)
			g.Expect(stored(g, sample.Name).Spec.Handler).To(Equal("runc"))
		})
	}
}
