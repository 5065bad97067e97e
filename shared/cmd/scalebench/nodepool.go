package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
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

// manager is a running manager whose memory the benchmark reads from its metrics
// endpoint: -managers name=URL,...
type manager struct {
	name, metricsURL string
}

// memory is what a manager's metrics say of its memory.
type memory struct {
	rss, heap float64 // bytes
}

// nodePool measures the NodePool controller on every Ready node of the cluster: members
// of the pool (every other node, so that members and non-members interleave) get its
// labels; the figures are the time a label change takes to reach every member, the node
// patches it costs, and the memory the managers spend on unrelated pods.
func (b *bench) nodePool(host string, members, unrelatedPods int, managers []manager) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	for _, m := range managers {
		readMemory(ctx, m) // fails now, not after the setup, if a manager is not running
	}
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
	// A spec change that concerns no node (the RuntimeClass handler) must patch none.
	before := b.nodePatches(ctx)
	must(b.patchPool(ctx, `{"spec":{"handler":"bench"}}`))
	b.waitFor(ctx, "the RuntimeClass to get the new handler", 50*time.Millisecond, func() bool {
		rc := &unstructured.Unstructured{}
		rc.SetGroupVersionKind(schema.GroupVersionKind{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"})
		err := b.c.Get(ctx, client.ObjectKey{Name: "node-pool-" + poolName}, rc)
		return err == nil && rc.Object["handler"] == "bench"
	})
	b.waitQuiet(ctx)
	handlerPatches := b.nodePatches(ctx) - before

	fmt.Printf("\n%-40s %14s %13s %8s\n", "pool change", "all members", "node patches", "target")
	for _, r := range []poolResult{first, second} {
		fmt.Printf("%-40s %13.2fs %13d %8d\n", r.name, r.took.Seconds(), r.patches, members)
	}
	fmt.Printf("%-40s %14s %13d %8d\n", "handler changed (no node concerned)", "-", handlerPatches, 0)
	if stray := b.strayNodes(ctx); stray > 0 {
		fmt.Printf("\n%d nodes outside the pool carry %s: the controller touched non-members\n", stray, roundLabel)
	} else {
		fmt.Printf("\nNo node outside the pool carries %s.\n", roundLabel)
	}

	if unrelatedPods > 0 {
		b.unrelatedPodsMemory(ctx, nodes, unrelatedPods, managers)
	}
}

type poolResult struct {
	name    string
	took    time.Duration
	patches int
}

// poolRound applies a change to the pool and measures the time until every member
// carries roundLabel=value, then, once the cluster is quiet, the node patches it cost.
func (b *bench) poolRound(ctx context.Context, name string, members int, value string, change func() error) poolResult {
	say("%s: waiting for %d members to carry %s=%s", name, members, roundLabel, value)
	before := b.nodePatches(ctx)
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
	r.patches = b.nodePatches(ctx) - before
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

// unrelatedPodsMemory reads the managers' memory, creates pods no controller of theirs
// made, waits until the simulated kubelets run them all, and reads it again.
func (b *bench) unrelatedPodsMemory(ctx context.Context, nodes []string, count int, managers []manager) {
	before := make([]memory, len(managers))
	for i, m := range managers {
		before[i] = readMemory(ctx, m)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-unrelated-"}}
	must(b.c.Create(ctx, ns))
	say("Creating %d pods no workshop controller made, bound round-robin to the %d nodes", count, len(nodes))
	began := time.Now()
	pods := make([]client.Object, count)
	for i := range pods {
		pods[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: fmt.Sprintf("unrelated-%05d", i),
				Labels: map[string]string{"app": "unrelated"}},
			Spec: corev1.PodSpec{
				NodeName:   nodes[i%len(nodes)],
				Containers: []corev1.Container{{Name: "app", Image: image}},
			},
		}
	}
	b.createAll(ctx, pods)
	say("Created %d pods in %.0fs; waiting for them to run", count, time.Since(began).Seconds())
	b.waitFor(ctx, fmt.Sprintf("%d unrelated pods Running", count), 2*time.Second, func() bool {
		var list metav1.PartialObjectMetadataList
		list.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
		must(b.c.List(ctx, &list, client.InNamespace(ns.Name), client.MatchingFields{"status.phase": "Running"}))
		return len(list.Items) == count
	})
	say("All %d Running after %.0fs; letting the managers settle", count, time.Since(began).Seconds())
	// Every informer has received the pods by now; give the garbage collector of each
	// manager time to run, so that the figures compare live memory, not garbage.
	time.Sleep(30 * time.Second)

	fmt.Printf("\nManager memory with %d nodes, before and after %d unrelated pods:\n\n", len(nodes), count)
	fmt.Printf("%-46s %10s %10s %10s %12s\n", "manager", "RSS before", "RSS after", "RSS added", "heap added")
	for i, m := range managers {
		after := readMemory(ctx, m)
		fmt.Printf("%-46s %8.1fMi %8.1fMi %8.1fMi %10.1fMi\n", m.name, mib(before[i].rss), mib(after.rss),
			mib(after.rss-before[i].rss), mib(after.heap-before[i].heap))
	}
}

func mib(bytes float64) float64 { return bytes / (1 << 20) }

// readMemory reads process_resident_memory_bytes and go_memstats_heap_inuse_bytes from a
// manager's metrics endpoint. A manager just started gets 30 seconds to answer.
func readMemory(ctx context.Context, m manager) memory {
	var resp *http.Response
	for began := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.metricsURL, nil)
		must(err)
		resp, err = http.DefaultClient.Do(req)
		if err == nil {
			break
		}
		if time.Since(began) > 30*time.Second {
			fail(fmt.Errorf("reading the metrics of %s: %w", m.name, err))
		}
	}
	defer resp.Body.Close()
	var mem memory
	found := 0
	scanner := bufio.NewScanner(resp.Body)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		name, value, ok := strings.Cut(scanner.Text(), " ")
		if !ok {
			continue
		}
		var into *float64
		switch name {
		case "process_resident_memory_bytes":
			into = &mem.rss
		case "go_memstats_heap_inuse_bytes":
			into = &mem.heap
		default:
			continue
		}
		parsed, err := strconv.ParseFloat(value, 64)
		must(err)
		*into = parsed
		found++
	}
	must(scanner.Err())
	if found != 2 {
		fail(fmt.Errorf("%s: %s has no process_resident_memory_bytes or go_memstats_heap_inuse_bytes", m.name, m.metricsURL))
	}
	return mem
}

// readyNodes returns the names of the Ready, schedulable nodes, sorted.
func (b *bench) readyNodes(ctx context.Context) []string {
	var nodes corev1.NodeList
	must(b.c.List(ctx, &nodes))
	var names []string
	for _, node := range nodes.Items {
		if isNodeReady(&node) && !node.Spec.Unschedulable {
			names = append(names, node.Name)
		}
	}
	slices.Sort(names)
	return names
}

// waitFor polls done every interval until it holds, saying every 10 seconds what it
// waits for. A timed wait polls often; a wait whose poll lists thousands of objects
// polls seldom, not to load the API server it measures.
func (b *bench) waitFor(ctx context.Context, what string, interval time.Duration, done func() bool) {
	began, told := time.Now(), time.Now()
	for !done() {
		if ctx.Err() != nil {
			fail(fmt.Errorf("gave up waiting for %s after %s", what, b.timeout))
		}
		if time.Since(told) > 10*time.Second {
			say("still waiting for %s (%.0fs)", what, time.Since(began).Seconds())
			told = time.Now()
		}
		time.Sleep(interval)
	}
}

// waitQuiet waits until the API server has served no node patch for two seconds, so
// that a count of patches holds all of a change's and none of the one before.
func (b *bench) waitQuiet(ctx context.Context) {
	last := b.nodePatches(ctx)
	for quietSince := time.Now(); time.Since(quietSince) < 2*time.Second; {
		time.Sleep(250 * time.Millisecond)
		if n := b.nodePatches(ctx); n != last {
			last, quietSince = n, time.Now()
		}
	}
}

// nodePatches reads how many node patches (of the node itself, not its status) the API
// server has served, whoever sent them.
func (b *bench) nodePatches(ctx context.Context) int {
	return b.requests(ctx, `resource="nodes"`, `verb="PATCH"`, `subresource=""`)
}

func say(format string, args ...any) {
	fmt.Printf("  %s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// parseManagers reads -managers: name=URL pairs, comma-separated.
func parseManagers(value string) ([]manager, error) {
	var managers []manager
	for pair := range strings.SplitSeq(value, ",") {
		if pair == "" {
			continue
		}
		name, url, ok := strings.Cut(pair, "=")
		if !ok || name == "" || !strings.HasPrefix(url, "http") {
			return nil, fmt.Errorf("-managers: %q is not name=http://host:port/metrics", pair)
		}
		managers = append(managers, manager{name: name, metricsURL: url})
	}
	return managers, nil
}
