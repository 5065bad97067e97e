// Command scalebench measures how fast a controller brings up pods, side by side with
// its built-in counterpart and with a plain client loop, on the cluster of the current
// kube context (scripts/bench.sh starts one and runs the workshop's manager).
//
// For each contender it creates the object asking for -replicas pods in a fresh namespace
// and reports the time until every pod exists, the time until every pod is Running, and
// the pod creates the API server counted (apiserver_request_total), then deletes it.
//
// Usage: scalebench -workload imoocpod -replicas 500
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/cluster"
)

const image = "registry.k8s.io/pause:3.10"

type result struct {
	name           string
	allCreated     time.Duration
	allRunning     time.Duration
	podCreateCalls int
}

func main() {
	workload := flag.String("workload", "imoocpod", "the workshop controller to measure: imoocpod")
	replicas := flag.Int("replicas", 500, "how many pods each contender brings up")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long one contender may take")
	flag.Parse()
	if *workload != "imoocpod" {
		fail(fmt.Errorf("-workload: %q is not a workload this benchmark knows (imoocpod)", *workload))
	}

	cfg, err := cluster.Config("")
	if err != nil {
		fail(err)
	}
	// The benchmark's own client must not be the bottleneck of the raw baseline.
	cfg.QPS, cfg.Burst = 5000, 10000
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		fail(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fail(err)
	}
	b := &bench{c: c, cs: cs, replicas: *replicas, timeout: *timeout}

	fmt.Printf("Bringing up %d pods, three ways, on %s\n\n", *replicas, cfg.Host)
	raw := b.measure("plain client loop", b.rawLoop)
	rs := b.measure("ReplicaSet (kube-controller-manager)", b.replicaSet)
	ip := b.measure("ImoocPod (workshop controller)", b.imoocPod)

	fmt.Printf("\n%-38s %12s %12s %13s\n", "contender", "all created", "all Running", "pod creates")
	for _, r := range []result{raw, rs, ip} {
		fmt.Printf("%-38s %11.2fs %11.2fs %13d\n", r.name, r.allCreated.Seconds(), r.allRunning.Seconds(), r.podCreateCalls)
	}
	fmt.Printf("\nImoocPod / ReplicaSet: created %.2fx, Running %.2fx (target: at most 1.00x)\n",
		ratio(ip.allCreated, rs.allCreated), ratio(ip.allRunning, rs.allRunning))
	fmt.Printf("ImoocPod / plain loop: created %.2fx, Running %.2fx (target: at most 1.50x)\n",
		ratio(ip.allCreated, raw.allCreated), ratio(ip.allRunning, raw.allRunning))
}

type bench struct {
	c        client.Client
	cs       *kubernetes.Clientset
	replicas int
	timeout  time.Duration
}

// measure runs one contender in a fresh namespace: start creates what asks for the pods
// and returns the label selector of those pods.
func (b *bench) measure(name string, start func(ctx context.Context, ns string) (labels.Selector, error)) result {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}
	must(b.c.Create(ctx, ns))
	defer func() {
		// Deleting the namespace takes the pods with it; wait so the next contender has
		// the cluster to itself.
		must(client.IgnoreNotFound(b.c.Delete(context.Background(), ns)))
		for {
			err := b.c.Get(context.Background(), client.ObjectKeyFromObject(ns), ns)
			if err != nil {
				return
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()

	fmt.Printf("%s: starting\n", name)
	createsBefore := b.podCreates(ctx)
	began := time.Now()
	selector, err := start(ctx, ns.Name)
	must(err)

	r := result{name: name}
	for r.allRunning == 0 {
		var pods corev1.PodList
		must(b.c.List(ctx, &pods, client.InNamespace(ns.Name), client.MatchingLabelsSelector{Selector: selector}))
		running := 0
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		if r.allCreated == 0 && len(pods.Items) >= b.replicas {
			r.allCreated = time.Since(began)
		}
		if running >= b.replicas {
			r.allRunning = time.Since(began)
		}
		if ctx.Err() != nil {
			fail(fmt.Errorf("%s: %d of %d pods Running after %s", name, running, b.replicas, b.timeout))
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.podCreateCalls = b.podCreates(ctx) - createsBefore
	fmt.Printf("%s: %d pods created in %.2fs, Running in %.2fs\n", name, b.replicas, r.allCreated.Seconds(), r.allRunning.Seconds())
	return r
}

// rawLoop creates the pods itself from 50 goroutines: the API server's own limit here.
func (b *bench) rawLoop(ctx context.Context, ns string) (labels.Selector, error) {
	sel := map[string]string{"bench": "raw"}
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 50 {
		wg.Go(func() {
			for i := range work {
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("raw-%d", i), Labels: sel},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
				}
				if err := b.c.Create(ctx, pod); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range b.replicas {
		work <- i
	}
	close(work)
	wg.Wait()
	return labels.SelectorFromSet(sel), firstErr
}

func (b *bench) replicaSet(ctx context.Context, ns string) (labels.Selector, error) {
	sel := map[string]string{"bench": "replicaset"}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bench"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(int32(b.replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}
	return labels.SelectorFromSet(sel), b.c.Create(ctx, rs)
}

func (b *bench) imoocPod(ctx context.Context, ns string) (labels.Selector, error) {
	ip := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.workshop.dev/v1",
		"kind":       "ImoocPod",
		"metadata":   map[string]any{"namespace": ns, "name": "bench"},
		"spec":       map[string]any{"replicas": int64(b.replicas), "image": image},
	}}
	return labels.SelectorFromSet(map[string]string{"apps.workshop.dev/imoocpod": "bench"}), b.c.Create(ctx, ip)
}

// podCreates reads how many pod creates the API server has served, from its metrics.
func (b *bench) podCreates(ctx context.Context) int {
	raw, err := b.cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	must(err)
	total := 0
	scanner := bufio.NewScanner(bytes.NewReader(raw))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="pods"`) ||
			!strings.Contains(line, `verb="POST"`) || !strings.Contains(line, `subresource=""`) {
			continue
		}
		fields := strings.Fields(line)
		n, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		must(err)
		total += int(n)
	}
	return total
}

func ratio(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

func must(err error) {
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "scalebench: %v\n", err)
	os.Exit(1)
}
