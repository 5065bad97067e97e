package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// manager is a running manager whose memory the benchmark reads from its metrics
// endpoint: -managers name=URL,...
type manager struct {
	name, metricsURL string
	// pprofURL is where the manager serves Go's profiles (-pprof), "" for nowhere.
	pprofURL string
}

// memory is what a manager's metrics say of its memory.
type memory struct {
	rss, heap float64 // bytes
}

// unrelatedPodsMemory reads the managers' memory, creates pods no controller of theirs
// made, bound round-robin to the Ready nodes, waits until the simulated kubelets run
// them all, and reads it again.
//
// The first manager is the one under test: the heap it added must be at most
// limit.base plus limit.perPod for each pod. The others are there to compare with.
func (b *bench) unrelatedPodsMemory(count int, managers []manager, limit heapLimit) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	nodes := b.readyNodes(ctx)
	if len(nodes) == 0 {
		fail(fmt.Errorf("the cluster has no Ready node to run the unrelated pods on"))
	}
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
	say("All %d Running after %.0fs; letting the managers settle for %s", count, time.Since(began).Seconds(), b.settle)
	// Every informer has received the pods by now; give the garbage collector of each
	// manager time to run, so that the figures compare live memory, not garbage.
	time.Sleep(b.settle)

	fmt.Printf("\nManager memory with %d nodes, before and after %d unrelated pods:\n\n", len(nodes), count)
	fmt.Printf("%-46s %10s %10s %10s %12s\n", "manager", "RSS before", "RSS after", "RSS added", "heap added")
	for i, m := range managers {
		after := readMemory(ctx, m)
		heapAdded := after.heap - before[i].heap
		fmt.Printf("%-46s %8.1fMi %8.1fMi %8.1fMi %10.1fMi\n", m.name, mib(before[i].rss), mib(after.rss),
			mib(after.rss-before[i].rss), mib(heapAdded))
		if i == 0 {
			expectAtMost(fmt.Sprintf("%s: heap added by %d pods", m.name, count), mib(heapAdded),
				mib(limit.base+limit.perPod*float64(count)), "%.1f MiB")
		}
	}
	printCacheHeaps(ctx, managers)
	reportTargets()
}

func mib(bytes float64) float64 { return bytes / (1 << 20) }

// A heapLimit is what a manager's heap may grow by when pods are added: base, which
// does not grow with the pods (the informers' buffers, the maps' first growth, what the
// garbage collector has not returned yet), plus perPod for each pod. A per-pod figure
// alone would be all base at a fifth of the scale: 2,000 pods of a trimmed cache cost
// about 17 MiB of heap, 10,000 about 23 MiB.
type heapLimit struct {
	base, perPod float64 // bytes
}

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

// parseManagers reads -managers: name=URL pairs, comma-separated.
// printCacheHeaps prints, for each manager that serves its profiles, the heap its
// informers hold, from its heap profile (readCacheHeap): where the memory goes, where
// the metrics give only the whole.
func printCacheHeaps(ctx context.Context, managers []manager) {
	printed := false
	for _, m := range managers {
		if m.pprofURL == "" {
			continue
		}
		if !printed {
			fmt.Printf("\nHeap in use allocated under %s* and %s* (the informers' caches), from each manager's heap profile:\n\n",
				cachePackage, watchPackage)
			printed = true
		}
		heap, err := readCacheHeap(ctx, m.pprofURL)
		must(err)
		fmt.Printf("%-46s %10.1fMi\n", m.name, mib(heap))
	}
}

// withPprof gives the managers, in their order, the profile URLs of value (-pprof:
// URL,URL,...; an empty one for a manager that serves none).
func withPprof(managers []manager, value string) error {
	if value == "" {
		return nil
	}
	urls := strings.Split(value, ",")
	if len(urls) != len(managers) {
		return fmt.Errorf("-pprof: %d URLs for %d managers: give one per manager of -managers, in their order", len(urls), len(managers))
	}
	for i, url := range urls {
		if url != "" && !strings.HasPrefix(url, "http") {
			return fmt.Errorf("-pprof: %q is not http://host:port", url)
		}
		managers[i].pprofURL = url
	}
	return nil
}

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
