package testenv

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// Every kind of write counts once, of an object or of its status, whether the API server
// accepts it or not; reads count nothing.
func TestWriteCounterCountsEveryWriteAndNoRead(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	existing := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "existing"}}
	evicted := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "evicted"}}
	fakeClient := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).
		WithObjects(existing, evicted).WithStatusSubresource(existing).Build()
	// The manager's client cannot watch: the counter must wrap such a client too.
	var plain client.Client = struct{ client.Client }{fakeClient}
	var writes WriteCounter
	c := writes.Wrap(plain)

	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
	}
	stored := func() *corev1.Pod {
		var got corev1.Pod
		g.Expect(fakeClient.Get(ctx, client.ObjectKeyFromObject(existing), &got)).To(Succeed())
		return &got
	}
	label := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"a":"b"}}}`))
	phase := client.RawPatch("application/merge-patch+json", []byte(`{"status":{"phase":"Running"}}`))

	reads := map[string]func() error{
		"get":        func() error { return c.Get(ctx, client.ObjectKeyFromObject(existing), &corev1.Pod{}) },
		"list":       func() error { return c.List(ctx, &corev1.PodList{}) },
		"status get": func() error { return c.SubResource("status").Get(ctx, stored(), &corev1.Pod{}) },
	}
	for name, read := range reads {
		_ = read()
		g.Expect(writes.Count()).To(BeZero(), "a %s is no write", name)
	}

	steps := []struct {
		name  string
		write func() error
	}{
		{"create", func() error { return c.Create(ctx, pod("created")) }},
		{"create refused", func() error { return c.Create(ctx, pod("created")) }},
		{"update", func() error { return c.Update(ctx, stored()) }},
		{"patch", func() error { return c.Patch(ctx, stored(), label) }},
		{"apply", func() error { return c.Apply(ctx, corev1ac.Pod("applied", "ns"), client.FieldOwner("test")) }},
		{"status update", func() error { return c.Status().Update(ctx, stored()) }},
		{"status patch", func() error { return c.Status().Patch(ctx, stored(), phase) }},
		{"subresource patch", func() error { return c.SubResource("status").Patch(ctx, stored(), phase) }},
		{"status apply", func() error {
			return c.Status().Apply(ctx, corev1ac.Pod("existing", "ns"), client.FieldOwner("test"))
		}},
		{"subresource create", func() error {
			return c.SubResource("eviction").Create(ctx, evicted, &policyv1.Eviction{})
		}},
		{"delete", func() error { return c.Delete(ctx, pod("created")) }},
		{"delete all of", func() error {
			return c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace("ns"), client.MatchingLabels{"none": "here"})
		}},
	}
	for i, step := range steps {
		_ = step.write()
		g.Expect(writes.Count()).To(BeEquivalentTo(i+1), "after the %s", step.name)
	}

	g.Expect(stored().Labels).To(HaveKeyWithValue("a", "b"), "the writes reach the wrapped client")
	g.Expect(stored().Status.Phase).To(Equal(corev1.PodRunning), "the status writes reach the wrapped client")
}
