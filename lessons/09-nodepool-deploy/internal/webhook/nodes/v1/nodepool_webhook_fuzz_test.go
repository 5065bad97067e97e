package v1

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// maxFuzzInput bounds every string the fuzzer tries. The longest valid input is a label
// key: a 253-byte prefix, "/" and a 63-byte name. Longer strings only make the regular
// expressions slower; the length limits are well inside the bound.
const maxFuzzInput = 330

// FuzzValidateNodePool feeds the webhooks a pool with arbitrary names, labels, taints and
// handlers, the way the API server would hand them any JSON a user sends. It checks what
// must hold for every input:
//
//   - the defaulter and the validator never panic (a panic is a refused request for the
//     user, and with failurePolicy=fail a refused write);
//   - a refusal is an Invalid error whose every cause names metadata.name or a field
//     under spec;
//   - create and an update that changes the spec agree, and an update that leaves the
//     spec alone is always admitted, without warnings;
//   - an accepted pool gives nodes only label keys and taint keys outside Kubernetes'
//     prefixes (node-restriction.kubernetes.io/ labels aside), and its name makes a valid
//     membership label and RuntimeClass name;
//   - defaulting changes only an empty handler and empty effects, does it once, never
//     leaves a field the validator then calls missing, and keeps an accepted pool
//     accepted with the same warnings: the API server calls the mutating webhook first
//     and validates what it returns.
//
// `go test` runs the inputs below; `go test -run '^$' -fuzz '^FuzzValidateNodePool$'
// -fuzztime 30s ./internal/webhook/nodes/v1` searches for more. A failing input is saved
// under testdata/fuzz and runs with every `go test` from then on.
func FuzzValidateNodePool(f *testing.F) {
	inputs := []struct{ name, labelKey, labelValue, taintKey, taintValue, effect1, effect2, handler string }{
		{"gpu", "node-pool.workshop.dev/tier", "gold", "node-pool.workshop.dev", "gpu", "NoSchedule", "NoExecute", "runc"},
		{"gpu", "", "", "", "", "", "", ""},
		{"gpu", "node-restriction.kubernetes.io/pool", "gpu", "dedicated", "", "PreferNoSchedule", "", "kata"},
		{"gpu", "kubernetes.io/hostname", "x", "node.kubernetes.io/unreachable", "", "NoExecute", "NoExecute", "runc"},
		{"gpu", "node-role.kubernetes.io/gpu", "", "k8s.io/x", "", "", "NoSchedule", "runc"},
		{"gpu", "bad key", "not valid!", "dedicated pool", "gpu/a100", "NoScheduling", "", "Kata"},
		{strings.Repeat("p", 64), "tier", strings.Repeat("v", 64), "-x", "", "NoSchedule", "NoSchedule", "a.b"},
		{"a.b", strings.Repeat("a", 254) + "/x", "", "example.com/", "", "", "", "-runc"},
		{"", "/x", "", "a/b/c", "", "", "", ""},
	}
	for _, s := range inputs {
		f.Add(s.name, s.labelKey, s.labelValue, s.taintKey, s.taintValue, s.effect1, s.effect2, s.handler)
	}

	ctx := context.Background()
	defaulter := &NodePoolCustomDefaulter{}
	validator := &NodePoolCustomValidator{}
	f.Fuzz(func(t *testing.T, name, labelKey, labelValue, taintKey, taintValue, effect1, effect2, handler string) {
		for _, s := range []string{name, labelKey, labelValue, taintKey, taintValue, effect1, effect2, handler} {
			if len(s) > maxFuzzInput {
				t.Skip("longer than any valid input")
			}
		}
		pool := &nodesv1.NodePool{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       nodesv1.NodePoolSpec{Handler: handler},
		}
		if labelKey != "" || labelValue != "" {
			pool.Spec.Labels = map[string]string{labelKey: labelValue}
		}
		// Two taints of one key: a duplicate when the effects are equal, or once the
		// defaulter has filled in both.
		if taintKey != "" || taintValue != "" || effect1 != "" || effect2 != "" {
			pool.Spec.Taints = []corev1.Taint{
				{Key: taintKey, Value: taintValue, Effect: corev1.TaintEffect(effect1)},
				{Key: taintKey, Effect: corev1.TaintEffect(effect2)},
			}
		}

		warnings, err := validator.ValidateCreate(ctx, pool.DeepCopy())
		checkAgreement(t, validator, pool, warnings, err)

		defaulted := pool.DeepCopy()
		if derr := defaulter.Default(ctx, defaulted); derr != nil {
			t.Fatalf("Default(%+v) failed: %v; a defaulter must cope with any object", pool.Spec, derr)
		}
		checkDefaults(t, pool, defaulted)
		_, defaultedErr := validator.ValidateCreate(ctx, defaulted.DeepCopy())
		for _, cause := range testenv.Causes(defaultedErr) {
			if cause.Type == metav1.CauseTypeFieldValueRequired &&
				(cause.Field == "spec.handler" || strings.HasSuffix(cause.Field, ".effect")) {
				t.Fatalf("the defaulted %+v is refused for a missing %s, which the defaulter should fill in: %v",
					defaulted.Spec, cause.Field, defaultedErr)
			}
		}

		if err != nil {
			testenv.CheckInvalid(t, err, pool.Spec, "metadata.name", "spec")
			return
		}

		checkAccepted(t, pool)
		if defaultedErr != nil {
			t.Fatalf("%+v was accepted, but not once defaulted to %+v: %v", pool.Spec, defaulted.Spec, defaultedErr)
		}
		defaultedWarnings, _ := validator.ValidateCreate(ctx, defaulted)
		if !equality.Semantic.DeepEqual(warnings, defaultedWarnings) {
			t.Fatalf("defaulting %+v changed the warnings from %q to %q", pool.Spec, warnings, defaultedWarnings)
		}
	})
}

// checkAgreement checks that an update that changes the spec to pool's is judged as its
// create was, and that one that leaves the spec alone is admitted without warnings.
func checkAgreement(t *testing.T, validator *NodePoolCustomValidator, pool *nodesv1.NodePool, warnings admission.Warnings, err error) {
	t.Helper()
	ctx := context.Background()
	old := pool.DeepCopy()
	old.Spec = nodesv1.NodePoolSpec{Handler: "previous", Labels: map[string]string{"fuzz.workshop.dev/previous": ""}}
	if !equality.Semantic.DeepEqual(old.Spec, pool.Spec) {
		updateWarnings, updateErr := validator.ValidateUpdate(ctx, old, pool.DeepCopy())
		if testenv.ErrorText(err) != testenv.ErrorText(updateErr) || !equality.Semantic.DeepEqual(warnings, updateWarnings) {
			t.Fatalf("create and update disagree about %+v:\ncreate: %v %q\nupdate: %v %q",
				pool.Spec, err, warnings, updateErr, updateWarnings)
		}
	}
	touched := pool.DeepCopy()
	touched.Finalizers = []string{"nodes.workshop.dev/cleanup"}
	if w, err := validator.ValidateUpdate(ctx, pool.DeepCopy(), touched); err != nil || len(w) > 0 {
		t.Fatalf("an update of %+v that leaves the spec alone was refused or warned about: %v %q", pool.Spec, err, w)
	}
}

// checkDefaults checks what the defaulter did to a copy of pool.
func checkDefaults(t *testing.T, pool, defaulted *nodesv1.NodePool) {
	t.Helper()
	if defaulted.Spec.Handler == "" {
		t.Fatalf("the defaulter left the handler of %+v empty", pool.Spec)
	}
	rest := defaulted.DeepCopy()
	if pool.Spec.Handler != "" && rest.Spec.Handler != pool.Spec.Handler {
		t.Fatalf("the defaulter replaced the handler %q the user chose with %q", pool.Spec.Handler, rest.Spec.Handler)
	}
	rest.Spec.Handler = pool.Spec.Handler
	for i := range rest.Spec.Taints {
		was := pool.Spec.Taints[i].Effect
		if is := rest.Spec.Taints[i].Effect; is == "" || (was != "" && is != was) {
			t.Fatalf("the defaulter turned the effect %q of spec.taints[%d] into %q", was, i, is)
		}
		rest.Spec.Taints[i].Effect = was
	}
	if !equality.Semantic.DeepEqual(rest, pool) {
		t.Fatalf("the defaulter changed more than the handler and the effects: %+v became %+v", pool.Spec, defaulted.Spec)
	}
	again := defaulted.DeepCopy()
	if err := (&NodePoolCustomDefaulter{}).Default(context.Background(), again); err != nil ||
		!equality.Semantic.DeepEqual(again, defaulted) {
		t.Fatalf("a second Default changed %+v to %+v (%v); defaulting must be idempotent", defaulted.Spec, again.Spec, err)
	}
}

// checkAccepted restates, independently of the validator's code, what an accepted pool
// must never give a node.
func checkAccepted(t *testing.T, pool *nodesv1.NodePool) {
	t.Helper()
	kubernetes := func(key string) (string, bool) {
		prefix, _, found := strings.Cut(key, "/")
		if !found {
			return "", false
		}
		labels := strings.Split(prefix, ".")
		n := len(labels)
		return prefix, n >= 2 && (labels[n-2] == "kubernetes" || labels[n-2] == "k8s") && labels[n-1] == "io"
	}
	for key, value := range pool.Spec.Labels {
		if prefix, owned := kubernetes(key); owned && prefix != "node-restriction.kubernetes.io" {
			t.Fatalf("the accepted %+v sets the label %q, under Kubernetes' prefix %s", pool.Spec, key, prefix)
		}
		if len(content.IsLabelKey(key)) > 0 || len(content.IsLabelValue(value)) > 0 {
			t.Fatalf("the accepted %+v sets the label %q=%q, which no node accepts", pool.Spec, key, value)
		}
	}
	for _, taint := range pool.Spec.Taints {
		if prefix, owned := kubernetes(taint.Key); owned {
			t.Fatalf("the accepted %+v sets the taint %q, under Kubernetes' prefix %s", pool.Spec, taint.Key, prefix)
		}
	}
	if errs := content.IsLabelKey(nodesv1.MemberLabelPrefix + pool.Name); len(errs) > 0 {
		t.Fatalf("the accepted pool %q has no valid membership label: %v", pool.Name, errs)
	}
	if errs := content.IsDNS1123Subdomain(nodesv1.RuntimeClassPrefix + pool.Name); len(errs) > 0 {
		t.Fatalf("the accepted pool %q has no valid RuntimeClass name: %v", pool.Name, errs)
	}
	if errs := content.IsDNS1123Label(pool.Spec.Handler); pool.Spec.Handler == "" || len(errs) > 0 {
		t.Fatalf("the accepted pool has the handler %q, which no RuntimeClass accepts: %v", pool.Spec.Handler, errs)
	}
}
