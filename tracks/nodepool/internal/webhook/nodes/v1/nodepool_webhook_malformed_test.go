package v1

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// More malformed NodePools than TestTheAPIServerRefusesBadNodePools sends: limits, types
// and the corners of label keys, values and taints. Each must be refused as Invalid with
// a cause naming the field at fault, whether the CRD's schema or the webhook refuses it.
//
// A value of the wrong JSON type is the exception: the defaulting webhook sees the object
// before the schema does, cannot decode it into the Go type, and refuses it as a Bad
// Request whose message names the field (json: cannot unmarshal ... spec.labels ...).
func TestMalformedNodePoolsAreRefusedWithTheirField(t *testing.T) {
	env.WaitForWebhooks(t)
	labels := func(kv ...string) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return map[string]any{"labels": m}
	}
	taint := func(fields ...string) map[string]any {
		t := map[string]any{}
		for i := 0; i < len(fields); i += 2 {
			t[fields[i]] = fields[i+1]
		}
		return map[string]any{"labels": goodLabels, "taints": []any{t}}
	}
	many := func(n int, item func(int) any) []any {
		list := make([]any, n)
		for i := range list {
			list[i] = item(i)
		}
		return list
	}
	tooManyLabels := map[string]any{}
	for i := range 65 {
		tooManyLabels[fmt.Sprintf("node-pool.workshop.dev/l%d", i)] = "x"
	}

	tests := []struct {
		name    string
		spec    map[string]any
		field   string
		message string
		// undecodable: refused by the defaulting webhook's decoder, not by validation.
		undecodable bool
	}{
		{"65 labels", map[string]any{"labels": tooManyLabels}, "spec.labels", "must have at most 64 items", false},
		{"33 taints", map[string]any{"labels": goodLabels, "taints": many(33, func(i int) any {
			return map[string]any{"key": fmt.Sprintf("dedicated-%d", i), "effect": "NoSchedule"}
		})}, "spec.taints", "must have at most 32 items", false},
		{"labels that are a list", map[string]any{"labels": []any{"tier=gold"}}, "spec.labels", "cannot unmarshal array", true},
		{"a label value that is a number", map[string]any{"labels": map[string]any{"node-pool.workshop.dev/tier": 1}},
			"spec.labels", "cannot unmarshal number", true},
		{"an empty label key", labels("", "x"), "spec.labels", "every key must be a label key", false},
		{"a label key with two slashes", labels("node-pool.workshop.dev/a/b", "x"), "spec.labels", "every key must be a label key", false},
		{"a label key ending in a dash", labels("node-pool.workshop.dev/tier-", "x"), "spec.labels", "every key must be a label key", false},
		{"a label name of 64 characters", labels("node-pool.workshop.dev/"+strings.Repeat("n", 64), "x"), "spec.labels", "every key must be a label key", false},
		{"a label value starting with a dash", labels("node-pool.workshop.dev/tier", "-gold"),
			"spec.labels[node-pool.workshop.dev/tier]", "must start and end with an alphanumeric character", false},
		{"a taint without a key", taint("effect", "NoSchedule"), "spec.taints[0].key", "Required value", false},
		{"a taint key under kubernetes.io", taint("key", "kubernetes.io/pool", "effect", "NoSchedule"),
			"spec.taints[0].key", "the prefix kubernetes.io/ is reserved for Kubernetes", false},
		{"a taint key whose prefix is too long", taint("key", strings.Repeat("a", 254)+"/x", "effect", "NoSchedule"),
			"spec.taints[0].key", "prefix part must be no more than 253 bytes", false},
		{"a taint value of 64 characters", taint("key", "dedicated", "value", strings.Repeat("v", 64), "effect", "NoSchedule"),
			"spec.taints[0].value", "must be no more than 63 bytes", false},
		{"a taint key under k8s.io", taint("key", "k8s.io/pool", "effect", "NoSchedule"),
			"spec.taints[0].key", "the prefix k8s.io/ is reserved for Kubernetes", false},
		{"a handler of 64 characters", map[string]any{"labels": goodLabels, "handler": strings.Repeat("r", 64)},
			"spec.handler", "may not be more than 63", false},
		{"a handler with an underscore", map[string]any{"labels": goodLabels, "handler": "run_c"},
			"spec.handler", "should match", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := env.Client().Create(env.Context(), unstructuredNodePool(fmt.Sprintf("malformed-%d", i), tt.spec))
			g.Expect(err).To(HaveOccurred(), "the API server should refuse a NodePool with %s", tt.name)
			if tt.undecodable {
				g.Expect(apierrors.IsBadRequest(err)).To(BeTrue(), "the refusal should be a Bad Request (400), got: %v", err)
				g.Expect(err.Error()).To(And(ContainSubstring(tt.field), ContainSubstring(tt.message)),
					"the refusal of a NodePool with %s should name the field %s", tt.name, tt.field)
				return
			}
			testenv.ExpectInvalid(g, err, tt.field, tt.message)
		})
	}
}
