package main

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	poolName = "bench"
	// memberLabel makes a node a member of the pool; roundLabel is the pool's own label,
	// whose value each round of the benchmark changes.
	memberLabel = "node-role.kubernetes.io/" + poolName
	roundLabel  = "bench.workshop.dev/round"
)

// nodePool measures the NodePool controller on every Ready node of the cluster: members
// of the pool (every other node, so that members and non-members interleave) get its
// labels; the figures are the time a label change takes to reach every member, the node
// writes (patches and applies) it costs.
func (b *bench) nodePool(host string, members int) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	nodes := b.readyNodes(ctx)
	if len(nodes) < 2*members {
		fail(fmt.Errorf("-pool-nodes: %d members need %d Ready nodes (every other node joins); the cluster has %d",
			members, 2*members, len(nodes)))
	}
	fmt.Printf("A NodePool of %d of the %d nodes on %s\n\n", members, len(nodes), host)

	var joining []client.Object
	for i := 0; i < 2*members; i += 2 {
		joining = append(joining, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: nodes[i]}})
	}
	say("Labelling %d nodes %s (the admin's part)", members, memberLabel)
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:""}}}`, memberLabel))
	b.parallel(ctx, joining, func(node client.Object) error { return b.c.Patch(ctx, node, patch) })
	b.waitQuiet(ctx)

	pool := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "nodes.workshop.dev/v1",
		"kind":       "NodePool",
		"metadata":   map[string]any{"name": poolName},
		"spec": map[string]any{
			"handler": "runc",
			"labels":  map[string]any{roundLabel: "1"},
			"taints":  []any{map[string]any{"key": "bench.workshop.dev/pool", "value": poolName, "effect": "PreferNoSchedule"}},
		},
	}}
	first := b.poolRound(ctx, "pool created", members, "1", func() error { return b.c.Create(ctx, pool) })
	second := b.poolRound(ctx, "label changed", members, "2", func() error {
		return b.patchPool(ctx, fmt.Sprintf(`{"spec":{"labels":{%q:"2"}}}`, roundLabel))
	})
	// A spec change that concerns no node (the RuntimeClass handler) must write to none.
	before := b.nodeWrites(ctx)
	must(b.patchPool(ctx, `{"spec":{"handler":"bench"}}`))
	b.waitFor(ctx, "the RuntimeClass to get the new handler", 50*time.Millisecond, func() bool {
		rc := &unstructured.Unstructured{}
		rc.SetGroupVersionKind(schema.GroupVersionKind{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"})
		err := b.c.Get(ctx, client.ObjectKey{Name: "node-pool-" + poolName}, rc)
		return err == nil && rc.Object["handler"] == "bench"
	})
	b.waitQuiet(ctx)
	handlerWrites := b.nodeWrites(ctx).minus(before)

	fmt.Printf("\n%-40s %14s %13s %13s\n", "pool change", "all members", "node patches", "node applies")
	for _, r := range []poolResult{first, second} {
		fmt.Printf("%-40s %13.2fs %13d %13d\n", r.name, r.took.Seconds(), r.writes.patches, r.writes.applies)
	}
	fmt.Printf("%-40s %14s %13d %13d\n", "handler changed (no node concerned)", "-", handlerWrites.patches, handlerWrites.applies)
	stray := b.strayNodes(ctx)
	fmt.Printf("\nNodes outside the pool that carry %s: %d\n", roundLabel, stray)

	// A new member gets the pool's labels and taints in one write: a merge patch of
	// both (lessons 05-09), or, once the labels are applied (lesson 14), one apply of
	// the labels and one patch of the taints, which an apply cannot own without taking
	// every other taint of the node. A label change is one write a member either way.
	perMember := func(name string, n int) { expectAtMost(name, float64(n), float64(members), "%.0f") }
	perMember("node patches when the pool is created", first.writes.patches)
	perMember("node applies when the pool is created", first.writes.applies)
	perMember("node writes when a label changes", second.writes.total())
	expectAtMost("node writes when the handler changes", float64(handlerWrites.total()), 0, "%.0f")
	expectAtMost("nodes outside the pool that carry its label", float64(stray), 0, "%.0f")
	reportTargets()
}

type poolResult struct {
	name   string
	took   time.Duration
	writes nodeWrites
}

// poolRound applies a change to the pool and measures the time until every member
// carries roundLabel=value, then, once the cluster is quiet, the node writes it cost.
func (b *bench) poolRound(ctx context.Context, name string, members int, value string, change func() error) poolResult {
	say("%s: waiting for %d members to carry %s=%s", name, members, roundLabel, value)
	before := b.nodeWrites(ctx)
	began := time.Now()
	must(change())
	r := poolResult{name: fmt.Sprintf("%s (%s=%s)", name, roundLabel, value)}
	b.waitFor(ctx, fmt.Sprintf("%d members to carry %s=%s", members, roundLabel, value), 50*time.Millisecond, func() bool {
		var list metav1.PartialObjectMetadataList
		list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
		must(b.c.List(ctx, &list, client.MatchingLabels{roundLabel: value, memberLabel: ""}))
		return len(list.Items) == members
	})
	r.took = time.Since(began)
	b.waitQuiet(ctx)
	r.writes = b.nodeWrites(ctx).minus(before)
	return r
}

func (b *bench) patchPool(ctx context.Context, patch string) error {
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(schema.GroupVersionKind{Group: "nodes.workshop.dev", Version: "v1", Kind: "NodePool"})
	pool.SetName(poolName)
	return b.c.Patch(ctx, pool, client.RawPatch(types.MergePatchType, []byte(patch)))
}

// strayNodes counts the nodes outside the pool that carry the pool's label.
func (b *bench) strayNodes(ctx context.Context) int {
	var list metav1.PartialObjectMetadataList
	list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NodeList"))
	must(b.c.List(ctx, &list, client.HasLabels{roundLabel}))
	stray := 0
	for _, node := range list.Items {
		if _, member := node.Labels[memberLabel]; !member {
			stray++
		}
	}
	return stray
}

// waitQuiet waits until the API server has served no node write for two seconds, so
// that a count of writes holds all of a change's and none of the one before.
func (b *bench) waitQuiet(ctx context.Context) {
	last := b.nodeWrites(ctx)
	for quietSince := time.Now(); time.Since(quietSince) < 2*time.Second; {
		time.Sleep(250 * time.Millisecond)
		if n := b.nodeWrites(ctx); n != last {
			last, quietSince = n, time.Now()
		}
	}
}

// nodeWrites counts the node writes (of the node itself, not its status) the API server
// has served, whoever sent them: patches, and applies, which are PATCHes of
// application/apply-patch+yaml that the API server counts as verb APPLY. NodePool
// applies its labels from lesson 14 on.
type nodeWrites struct{ patches, applies int }

func (w nodeWrites) total() int { return w.patches + w.applies }

func (w nodeWrites) minus(before nodeWrites) nodeWrites {
	return nodeWrites{w.patches - before.patches, w.applies - before.applies}
}

func (b *bench) nodeWrites(ctx context.Context) nodeWrites {
	return nodeWrites{
		patches: b.requests(ctx, `resource="nodes"`, `verb="PATCH"`, `subresource=""`),
		applies: b.requests(ctx, `resource="nodes"`, `verb="APPLY"`, `subresource=""`),
	}
}
