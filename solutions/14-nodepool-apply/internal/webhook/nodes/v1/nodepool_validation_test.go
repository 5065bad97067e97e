package v1

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

// The webhooks' functions called directly, not through the API server: the cases the CRD's
// schema refuses first (an unknown effect, a duplicate taint, a long name) show here too,
// and a failure names the function.

func TestDefaultFillsInOnlyWhatIsMissing(t *testing.T) {
	g := NewWithT(t)
	pool := &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "demo"},
		Spec: nodesv1.NodePoolSpec{
			Labels: map[string]string{"node-pool.workshop.dev/tier": "gold"},
			Taints: []corev1.Taint{
				{Key: "dedicated", Value: "gpu"},
				{Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule},
			},
		},
	}
	g.Expect((&NodePoolCustomDefaulter{}).Default(context.Background(), pool)).To(Succeed())
	g.Expect(pool.Spec.Handler).To(Equal("runc"), "an empty handler gets the default")
	g.Expect(pool.Spec.Taints).To(Equal([]corev1.Taint{
		{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: "spot", Effect: corev1.TaintEffectPreferNoSchedule},
	}), "a taint without an effect gets NoSchedule; one with an effect keeps it")
	g.Expect(pool.Spec.Labels).To(Equal(map[string]string{"node-pool.workshop.dev/tier": "gold"}), "labels are never defaulted")

	pool.Spec.Handler = "kata"
	g.Expect((&NodePoolCustomDefaulter{}).Default(context.Background(), pool)).To(Succeed())
	g.Expect(pool.Spec.Handler).To(Equal("kata"), "a handler the user chose stays")
}

// reservedRule is the rule of reservedPrefix, which a failure states.
const reservedRule = "Kubernetes reserves kubernetes.io/ and k8s.io/ with every subdomain (node.kubernetes.io/), " +
	"and nothing that only ends in those words (example-kubernetes.io/)"

func TestReservedPrefix(t *testing.T) {
	tests := []struct {
		key      string
		prefix   string
		reserved bool
	}{
		{"kubernetes.io/hostname", "kubernetes.io", true},
		{"k8s.io/anything", "k8s.io", true},
		{"node.kubernetes.io/instance-type", "node.kubernetes.io", true},
		{"topology.kubernetes.io/zone", "topology.kubernetes.io", true},
		{"node-role.kubernetes.io/gpu", "node-role.kubernetes.io", true},
		{"node-restriction.kubernetes.io/pool", "node-restriction.kubernetes.io", true},
		{"a.b.k8s.io/x", "a.b.k8s.io", true},
		{"node-pool.workshop.dev/tier", "", false},
		{"example-kubernetes.io/x", "", false},
		{"kubernetes.io.example.com/x", "", false},
		{"kubernetes.io", "", false},
		{"dedicated", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			g := NewWithT(t)
			prefix, reserved := reservedPrefix(tt.key)
			g.Expect(reserved).To(Equal(tt.reserved), "is the prefix of %q reserved? %s", tt.key, reservedRule)
			g.Expect(prefix).To(Equal(tt.prefix), "the reserved prefix of %q: %s", tt.key, reservedRule)
		})
	}
}

// validateLabels and validateTaints alone: each error has its field path, the rule of
// the API server's own node validation, and labels come in the order of their keys.
func TestValidateLabelsRefusesWhatANodeWouldNot(t *testing.T) {
	path := field.NewPath("spec", "labels")
	tests := []struct {
		name   string
		labels map[string]string
		want   []string
	}{
		{"labels a node accepts", map[string]string{"pool.example/tier": "1", "zone": ""}, nil},
		{"the administrators' prefix", map[string]string{"node-restriction.kubernetes.io/pool": "gpu"}, nil},
		{"a key that is no label key", map[string]string{"bad key!": "1"}, []string{"FieldValueInvalid spec.labels[bad key!]"}},
		{"a value that is no label value", map[string]string{"zone": "not a value!"}, []string{"FieldValueInvalid spec.labels[zone]"}},
		{"a reserved prefix", map[string]string{"kubernetes.io/arch": "arm64", "sub.k8s.io/x": "1"},
			[]string{"FieldValueForbidden spec.labels[kubernetes.io/arch]", "FieldValueForbidden spec.labels[sub.k8s.io/x]"}},
		{"a membership label", map[string]string{nodesv1.MemberLabelPrefix + "gpu": ""}, []string{"FieldValueForbidden spec.labels[" + nodesv1.MemberLabelPrefix + "gpu]"}},
		{"every problem, by key", map[string]string{"z": "bad value!", "a!": "1"},
			[]string{"FieldValueInvalid spec.labels[a!]", "FieldValueInvalid spec.labels[z]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(typesAndFields(validateLabels(tt.labels, path))).To(Equal(tt.want), "validateLabels(%v)", tt.labels)
		})
	}
}

func TestValidateTaintsRefusesWhatANodeWouldNot(t *testing.T) {
	path := field.NewPath("spec", "taints")
	noSchedule := func(key, value string) corev1.Taint {
		return corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule}
	}
	tests := []struct {
		name   string
		taints []corev1.Taint
		want   []string
	}{
		{"taints a node accepts", []corev1.Taint{noSchedule("dedicated", "gpu"),
			{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoExecute}}, nil},
		{"no key", []corev1.Taint{noSchedule("", "")}, []string{"FieldValueRequired spec.taints[0].key"}},
		{"a key that is no label key", []corev1.Taint{noSchedule("bad key!", "")}, []string{"FieldValueInvalid spec.taints[0].key"}},
		{"a reserved prefix", []corev1.Taint{noSchedule("node.kubernetes.io/unreachable", "")},
			[]string{"FieldValueForbidden spec.taints[0].key"}},
		{"a value that is no label value", []corev1.Taint{noSchedule("dedicated", "not a value!")},
			[]string{"FieldValueInvalid spec.taints[0].value"}},
		{"an unknown effect", []corev1.Taint{{Key: "dedicated", Effect: "Sometimes"}}, []string{"FieldValueNotSupported spec.taints[0].effect"}},
		{"the same key and effect twice", []corev1.Taint{noSchedule("dedicated", "a"), noSchedule("dedicated", "b")},
			[]string{"FieldValueDuplicate spec.taints[1]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(typesAndFields(validateTaints(tt.taints, path))).To(Equal(tt.want), "validateTaints(%v)", tt.taints)
		})
	}
}

// typesAndFields returns the type and field path of each error, in order.
func typesAndFields(errs field.ErrorList) []string {
	var got []string
	for _, err := range errs {
		got = append(got, string(err.Type)+" "+err.Field)
	}
	return got
}

// A pool's name is the name part of its membership label and part of its RuntimeClass's
// name. The API server and the CRD check it before the webhook; called directly, the
// validator says why a name is too long.
func TestValidateNodePoolChecksTheName(t *testing.T) {
	g := NewWithT(t)
	pool := &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: strings.Repeat("p", 64)},
		Spec:       nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"tier": "gold"}},
	}
	_, err := validateNodePool(pool)
	g.Expect(err).To(MatchError(ContainSubstring(
		"metadata.name: Invalid value: %q: the membership label node-role.kubernetes.io/%s: name part must be no more than 63 bytes",
		pool.Name, pool.Name)))
	g.Expect(testenv.Causes(err)).To(HaveLen(1), "node-pool-<name> is a valid RuntimeClass name: %v", err)
}

// A pool named after a node role (worker, control-plane, master) would adopt the nodes
// that carry its membership label already, the manager's own included: its NoExecute
// taint would evict the manager, whose webhooks then refuse every NodePool change.
func TestValidateNodePoolRefusesTheNamesOfNodeRoles(t *testing.T) {
	for _, name := range []string{"worker", "control-plane", "master"} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			pool := &nodesv1.NodePool{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec:       nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"tier": "gold"}},
			}
			_, err := validateNodePool(pool)
			g.Expect(err).To(MatchError(ContainSubstring(
				"metadata.name: Invalid value: %q: a NodePool may not be named after a node role: node-role.kubernetes.io/%s",
				name, name)), "validateName should refuse the names of node roles")
		})
	}
	pool := &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "workers"},
		Spec:       nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"tier": "gold"}},
	}
	_, err := validateNodePool(pool)
	NewWithT(t).Expect(err).NotTo(HaveOccurred(), "a name that is no node role's is allowed")
}

// Keys come back in sorted order, so that the same pool always gets the same message.
func TestLabelErrorsAreSorted(t *testing.T) {
	g := NewWithT(t)
	labels := map[string]string{}
	for _, key := range strings.Split("z! y! x! w! v! u! t! s!", " ") {
		labels[key] = ""
	}
	_, err := validateNodePool(&nodesv1.NodePool{Spec: nodesv1.NodePoolSpec{Handler: "runc", Labels: labels}})
	g.Expect(err).To(HaveOccurred())
	var fields []string
	for _, cause := range testenv.Causes(err) {
		if strings.HasPrefix(cause.Field, "spec.") {
			fields = append(fields, cause.Field)
		}
	}
	g.Expect(fields).To(Equal([]string{
		"spec.labels[s!]", "spec.labels[t!]", "spec.labels[u!]", "spec.labels[v!]",
		"spec.labels[w!]", "spec.labels[x!]", "spec.labels[y!]", "spec.labels[z!]",
	}))
}

func TestValidateNodePool(t *testing.T) {
	taint := func(key, value string, effect corev1.TaintEffect) corev1.Taint {
		return corev1.Taint{Key: key, Value: value, Effect: effect}
	}
	tests := []struct {
		name       string
		spec       nodesv1.NodePoolSpec
		wantErrors []string
		// wantWarnings counts the warnings of an admitted spec; a refusal has none.
		wantWarnings int
	}{
		{"a valid spec", nodesv1.NodePoolSpec{
			Handler: "runc",
			Labels:  map[string]string{"node-pool.workshop.dev/tier": "gold", "gpu": ""},
			Taints:  []corev1.Taint{taint("node-pool.workshop.dev", "gpu", corev1.TaintEffectNoSchedule)},
		}, nil, 0},
		{"node-restriction.kubernetes.io is the administrators' prefix", nodesv1.NodePoolSpec{
			Handler: "runc", Labels: map[string]string{"node-restriction.kubernetes.io/pool": "gpu"},
		}, nil, 0},
		{"a bad label key", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"bad key": "x"}},
			[]string{`spec.labels[bad key]: Invalid value: "bad key": name part must consist of alphanumeric characters`}, 0},
		{"a label key whose prefix is too long", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{strings.Repeat("a", 254) + "/x": ""}},
			[]string{"prefix part must be no more than 253 bytes"}, 0},
		{"a label under kubernetes.io", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"kubernetes.io/hostname": "x"}},
			[]string{"spec.labels[kubernetes.io/hostname]: Forbidden: the prefix kubernetes.io/ is reserved for Kubernetes"}, 0},
		{"a label under a subdomain of kubernetes.io", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"node.kubernetes.io/instance-type": "big"}},
			[]string{"spec.labels[node.kubernetes.io/instance-type]: Forbidden: the prefix node.kubernetes.io/ is reserved"}, 0},
		{"a label under k8s.io", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"k8s.io/x": ""}},
			[]string{"spec.labels[k8s.io/x]: Forbidden: the prefix k8s.io/ is reserved"}, 0},
		{"a membership label", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"node-role.kubernetes.io/other": ""}},
			[]string{"spec.labels[node-role.kubernetes.io/other]: Forbidden: node-role.kubernetes.io/ labels decide which pools a node belongs to"}, 0},
		{"a bad label value", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"tier": "not valid!"}},
			[]string{`spec.labels[tier]: Invalid value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters`}, 0},
		{"a label value that is too long", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"tier": strings.Repeat("v", 64)}},
			[]string{"spec.labels[tier]: Invalid value: \"" + strings.Repeat("v", 64) + "\": must be no more than 63 bytes"}, 0},
		{"a taint without a key", nodesv1.NodePoolSpec{Handler: "runc", Taints: []corev1.Taint{taint("", "x", corev1.TaintEffectNoSchedule)}},
			[]string{"spec.taints[0].key: Required value"}, 0},
		{"a bad taint key", nodesv1.NodePoolSpec{Handler: "runc", Taints: []corev1.Taint{taint("dedicated pool", "", corev1.TaintEffectNoSchedule)}},
			[]string{`spec.taints[0].key: Invalid value: "dedicated pool": name part must consist of alphanumeric characters`}, 0},
		{"a taint under node.kubernetes.io", nodesv1.NodePoolSpec{Handler: "runc", Taints: []corev1.Taint{taint("node.kubernetes.io/unreachable", "", corev1.TaintEffectNoExecute)}},
			[]string{"spec.taints[0].key: Forbidden: the prefix node.kubernetes.io/ is reserved for Kubernetes"}, 0},
		{"a bad taint value", nodesv1.NodePoolSpec{Handler: "runc", Taints: []corev1.Taint{taint("dedicated", "gpu/a100", corev1.TaintEffectNoSchedule)}},
			[]string{`spec.taints[0].value: Invalid value: "gpu/a100"`}, 0},
		{"a taint without an effect", nodesv1.NodePoolSpec{Handler: "runc", Taints: []corev1.Taint{taint("dedicated", "", "")}},
			[]string{"spec.taints[0].effect: Required value"}, 0},
		{"an unknown effect", nodesv1.NodePoolSpec{Handler: "runc", Taints: []corev1.Taint{taint("dedicated", "", "NoScheduling")}},
			[]string{`spec.taints[0].effect: Unsupported value: "NoScheduling": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`}, 0},
		{"the same key and effect twice", nodesv1.NodePoolSpec{Handler: "runc", Taints: []corev1.Taint{
			taint("dedicated", "a", corev1.TaintEffectNoSchedule), taint("dedicated", "b", corev1.TaintEffectNoSchedule),
		}}, []string{`spec.taints[1]: Duplicate value: "dedicated:NoSchedule"`}, 0},
		{"no handler", nodesv1.NodePoolSpec{Labels: map[string]string{"tier": "gold"}}, []string{"spec.handler: Required value"}, 0},
		{"a handler that is no DNS label", nodesv1.NodePoolSpec{Handler: "Kata.v2", Labels: map[string]string{"tier": "gold"}},
			[]string{`spec.handler: Invalid value: "Kata.v2": a lowercase RFC 1123 label must consist of`}, 0},
		{"a NoExecute taint", nodesv1.NodePoolSpec{Handler: "runc", Labels: map[string]string{"tier": "gold"},
			Taints: []corev1.Taint{taint("dedicated", "gpu", corev1.TaintEffectNoExecute)}}, nil, 1},
		{"no label", nodesv1.NodePoolSpec{Handler: "runc"}, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pool := &nodesv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Spec: tt.spec}
			warnings, err := validateNodePool(pool)
			g.Expect(warnings).To(HaveLen(tt.wantWarnings), "warnings: %q", warnings)
			if tt.wantErrors == nil {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "validateNodePool should return apierrors.NewInvalid, got %v", err)
			g.Expect(err.Error()).To(HavePrefix(`NodePool.nodes.workshop.dev "demo" is invalid`))
			for _, want := range tt.wantErrors {
				g.Expect(err.Error()).To(ContainSubstring(want))
			}
			g.Expect(testenv.Causes(err)).To(HaveLen(len(tt.wantErrors)), "one cause per problem: %v", err)
		})
	}
}

// An update that leaves the spec alone is admitted, even when the spec breaks a rule:
// the controller's finalizer patches must go through. One that changes the spec is
// checked whole.
func TestValidateUpdateChecksOnlyAChangedSpec(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	validator := &NodePoolCustomValidator{}
	old := &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "old"},
		Spec: nodesv1.NodePoolSpec{
			Handler: "runc",
			Labels:  map[string]string{"kubernetes.io/hostname": "pool"},
			Taints:  []corev1.Taint{{Key: "dedicated", Effect: corev1.TaintEffectNoExecute}},
		},
	}
	withFinalizer := old.DeepCopy()
	withFinalizer.Finalizers = []string{"nodes.workshop.dev/cleanup"}
	warnings, err := validator.ValidateUpdate(ctx, old, withFinalizer)
	g.Expect(err).NotTo(HaveOccurred(), "a metadata change must go through, whatever the spec")
	g.Expect(warnings).To(BeEmpty(), "no warning about a spec nobody changed")

	changed := withFinalizer.DeepCopy()
	changed.Spec.Labels["node-pool.workshop.dev/tier"] = "gold"
	_, err = validator.ValidateUpdate(ctx, withFinalizer, changed)
	g.Expect(err).To(MatchError(ContainSubstring("spec.labels[kubernetes.io/hostname]: Forbidden")),
		"a spec change is checked whole, the old problems included")

	fixed := changed.DeepCopy()
	delete(fixed.Spec.Labels, "kubernetes.io/hostname")
	warnings, err = validator.ValidateUpdate(ctx, changed, fixed)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(warnings).To(ConsistOf(HavePrefix("spec.taints[0]: the NoExecute taint dedicated:NoExecute evicts")),
		"a spec change gets the warnings of a create")
}
