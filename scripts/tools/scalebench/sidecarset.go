package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// sidecarSetExcludedNamespace is a namespace the SidecarSet pod webhook's configuration
// leaves out, the manager's own: the API server never calls the manager for its pods,
// and the manager's SidecarSet webhook dry-runs pods there.
const sidecarSetExcludedNamespace = "sidecarset-system"

// admissionLatency is what creating pods one after the other cost, as the client saw it.
type admissionLatency struct {
	name     string
	p50, p99 time.Duration
}

// sidecarSetAdmission measures what the SidecarSet pod webhook adds to a pod creation:
// count pods created one at a time (each create waits for its answer), in each of three
// places:
//   - a namespace the webhook's configuration leaves out: no call to the manager;
//   - a namespace it sees, pods no SidecarSet selects: a call that changes nothing;
//   - the same namespace, pods a SidecarSet selects: a call that injects a sidecar.
//
// Each pod is bound to a node (spec.nodeName), so the scheduler plays no part. It leaves
// a SidecarSet that selects the pods the unrelated-pods workload creates (app=unrelated)
// behind, so that the memory measured next is that of a manager that counts them.
func (b *bench) sidecarSetAdmission(host string, count int) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	nodes := b.readyNodes(ctx)
	if len(nodes) == 0 {
		fail(fmt.Errorf("the cluster has no Ready node"))
	}
	// The namespace the webhook's configuration leaves out is the manager's own, where
	// its SidecarSet webhook dry-runs pods: it must exist before any SidecarSet.
	excluded := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: sidecarSetExcludedNamespace}}
	if err := b.c.Create(ctx, excluded); err != nil && !apierrors.IsAlreadyExists(err) {
		must(err)
	}
	// The manager has just started: until its webhook server answers, the API server
	// refuses SidecarSets (their validating webhook fails closed).
	for began := time.Now(); ; time.Sleep(500 * time.Millisecond) {
		err := b.createSidecarSet(ctx, "bench-injected", map[string]string{"bench-sidecar": "true"})
		if err == nil || apierrors.IsAlreadyExists(err) {
			break
		}
		if time.Since(began) > 30*time.Second {
			fail(fmt.Errorf("creating a SidecarSet: %w", err))
		}
	}
	// The manager reads SidecarSets from its cache: give it a moment to hear of the new one.
	time.Sleep(2 * time.Second)
	seen := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-sidecars-"}}
	must(b.c.Create(ctx, seen))

	fmt.Printf("Creating %d pods one at a time, three ways, on %s\n\n", count, host)
	results := []admissionLatency{
		b.createOneByOne(ctx, "no webhook call (excluded namespace)", excluded.Name, nodes, count, nil),
		b.createOneByOne(ctx, "webhook called, nothing to inject", seen.Name, nodes, count, nil),
		b.createOneByOne(ctx, "webhook injects one sidecar", seen.Name, nodes, count, map[string]string{"bench-sidecar": "true"}),
	}
	must(client.IgnoreNotFound(b.c.Delete(ctx, seen)))

	fmt.Printf("\n%-40s %10s %10s %14s\n", "pod creations", "p50", "p99", "p50 added")
	for _, r := range results {
		fmt.Printf("%-40s %8.1fms %8.1fms %12.1fms\n", r.name, ms(r.p50), ms(r.p99), ms(r.p50-results[0].p50))
	}
	expectTimeAtMost("p50 a webhook call that injects adds to a pod creation", ms(results[2].p50-results[0].p50), injectTarget, "%.1f ms")
	must(b.createSidecarSet(ctx, "bench-unrelated", map[string]string{"app": "unrelated"}))
	reportTargets()
}

// injectTarget is what the pod webhook may add to the median pod creation, in
// milliseconds: a call over loopback, a read of the SidecarSets from the cache and a
// patch of a few hundred bytes.
const injectTarget = 50

// createOneByOne creates count pods in ns, each once the previous one is created, and
// returns the latencies; a few creations first warm up connections and caches. It deletes
// the pods afterwards.
func (b *bench) createOneByOne(ctx context.Context, name, ns string, nodes []string, count int, labels map[string]string) admissionLatency {
	fmt.Printf("%s: creating %d pods\n", name, count)
	newPod := func(i int, prefix string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%04d", prefix, i), Labels: labels},
			Spec: corev1.PodSpec{
				NodeName:   nodes[i%len(nodes)],
				Containers: []corev1.Container{{Name: "app", Image: image}},
			},
		}
	}
	prefix := fmt.Sprintf("latency-%d", time.Now().UnixNano()%100000)
	for i := range 20 {
		must(b.c.Create(ctx, newPod(i, prefix+"-warm")))
	}
	took := make([]time.Duration, 0, count)
	for i := range count {
		pod := newPod(i, prefix)
		began := time.Now()
		must(b.c.Create(ctx, pod))
		took = append(took, time.Since(began))
	}
	must(b.c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(ns), client.GracePeriodSeconds(0)))
	slices.Sort(took)
	return admissionLatency{name: name, p50: took[len(took)/2], p99: took[len(took)*99/100]}
}

// createSidecarSet creates a SidecarSet of one sidecar that selects the pods with labels.
func (b *bench) createSidecarSet(ctx context.Context, name string, labels map[string]string) error {
	matchLabels := map[string]any{}
	for k, v := range labels {
		matchLabels[k] = v
	}
	set := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "sidecars.workshop.dev/v1",
		"kind":       "SidecarSet",
		"metadata":   map[string]any{"name": name},
		"spec": map[string]any{
			"selector": map[string]any{"matchLabels": matchLabels},
			"containers": []any{map[string]any{
				"name": "log-shipper", "image": "busybox:1.37",
				"volumeMounts": []any{map[string]any{"name": "app-logs", "mountPath": "/var/log/app"}},
			}},
			"volumes": []any{map[string]any{"name": "app-logs", "emptyDir": map[string]any{}}},
		},
	}}
	return b.c.Create(ctx, set)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
