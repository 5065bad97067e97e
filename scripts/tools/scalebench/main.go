// Command scalebench measures how fast a controller brings up pods, side by side with
// its built-in counterpart, on the cluster of the current kube context (scripts/bench.sh
// starts one and runs the workshop's manager).
//
// For each contender it creates the object asking for the pods in a fresh namespace and
// reports the time until every pod exists, the time until every pod is Running, and the
// pod creates the API server counted (apiserver_request_total), then deletes it.
//
//   - imoocpod: -replicas pods from a plain client loop, a ReplicaSet and an ImoocPod;
//     with -results FILE it also writes its figures there.
//   - imoocpod-clientgo: the ImoocPod again, for the controller of solutions/12-clientgo
//     (client-go without controller-runtime), which scripts/bench.sh starts in place of
//     the first manager; it reads the figures of the imoocpod run from -results FILE and
//     prints them all, with the ratio of the two controllers.
//   - mydaemonset: one pod on each Ready node from a DaemonSet and a MyDaemonSet; a
//     contender is done when every node runs a Running pod of it.
//   - nodepool: a NodePool of -pool-nodes nodes (every other Ready node). It reports the
//     time until every member carries the pool's labels, when the pool is created and
//     when a label changes, and the node patches each change cost (the API server's
//     count, taken once the cluster is quiet: it includes anyone's patches, so on a
//     cluster of its own it is the controller's). It leaves the pool and the labels
//     behind: scripts/bench.sh deletes the whole cluster.
//   - sidecarset: -replicas pods created one at a time, with no call to the SidecarSet pod
//     webhook, with a call that injects nothing, and with one that injects a sidecar;
//     the p50 and p99 of each (sidecarset.go).
//   - mydaemonset-admission: -replicas MyDaemonSets created one at a time as server-side
//     dry runs, defaulted by the mutating webhook, by nothing, and by the
//     MutatingAdmissionPolicy of -policies; the p50 and p99 of each (admission.go).
//   - unrelated-pods: creates -unrelated-pods pods that no workshop controller made and
//     reports how much memory each manager of -managers (name=metrics URL,
//     comma-separated) spent on them: what a manager's pod cache costs. With -pprof
//     (each manager's --pprof-bind-address), also the heap its informers hold, from its
//     heap profile (heapprofile.go): lesson 17's trimmed cache against a whole one.
//
// Usage:
//
//	scalebench -workload imoocpod -replicas 500 -results bench-imoocpod.json
//	scalebench -workload imoocpod-clientgo -replicas 500 -results bench-imoocpod.json
//	scalebench -workload mydaemonset
//	scalebench -workload nodepool -pool-nodes 500
//	scalebench -workload unrelated-pods -unrelated-pods 10000 \
//		-managers own=http://127.0.0.1:28090/metrics,all=http://127.0.0.1:28091/metrics
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
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
	workload := flag.String("workload", "imoocpod", "what to measure: imoocpod, mydaemonset, nodepool or unrelated-pods")
	replicas := flag.Int("replicas", 500, "how many pods each contender brings up (imoocpod)")
	timeout := flag.Duration("timeout", 5*time.Minute, "how long one contender may take")
	poolNodes := flag.Int("pool-nodes", 500, "how many nodes join the NodePool (nodepool)")
	unrelatedPods := flag.Int("unrelated-pods", 10000, "how many pods of no workshop controller to add (unrelated-pods)")
	managersFlag := flag.String("managers", "", "the managers whose memory to read, as name=metrics URL, comma-separated (unrelated-pods)")
	pprofFlag := flag.String("pprof", "", "where the managers of -managers serve Go's profiles, http://host:port, comma-separated in their order: prints the heap their informers hold (unrelated-pods)")
	flag.BoolVar(&checkTimes, "check-times", true, "check the targets on times too (false: print them only, as the short form does)")
	settle := flag.Duration("settle", 30*time.Second, "how long the managers settle before their memory is read again (unrelated-pods)")
	heapBase := flag.Float64("heap-base", 16, "the heap in MiB the first manager of -managers may add whatever the pods (unrelated-pods)")
	heapPerPod := flag.Float64("heap-per-pod", 0, "the heap in KiB the first manager of -managers may add for each pod (unrelated-pods)")
	policies := flag.String("policies", "", "the folder of the stage's admission policies (mydaemonset-admission)")
	resultsFile := flag.String("results", "", "where the imoocpod workload writes its figures and imoocpod-clientgo reads them")
	flag.Parse()
	known := []string{"imoocpod", "imoocpod-clientgo", "mydaemonset", "nodepool", "unrelated-pods", "sidecarset", "mydaemonset-admission"}
	if !slices.Contains(known, *workload) {
		fail(fmt.Errorf("-workload: %q is not a workload this benchmark knows (%s)", *workload, strings.Join(known, ", ")))
	}
	managers, err := parseManagers(*managersFlag)
	if err != nil {
		fail(err)
	}
	if err := withPprof(managers, *pprofFlag); err != nil {
		fail(err)
	}
	if *workload == "imoocpod-clientgo" && *resultsFile == "" {
		fail(fmt.Errorf("-results: the imoocpod-clientgo workload compares with the figures of an imoocpod run"))
	}
	if *workload == "mydaemonset-admission" && *policies == "" {
		fail(fmt.Errorf("-policies: the mydaemonset-admission workload needs the folder of the stage's policies (config/policies)"))
	}
	if *workload == "unrelated-pods" && len(managers) == 0 {
		fail(fmt.Errorf("-managers: the unrelated-pods workload needs at least one manager to read the memory of"))
	}
	if *workload == "unrelated-pods" && *heapPerPod <= 0 {
		fail(fmt.Errorf("-heap-per-pod: the unrelated-pods workload needs the first manager's target, a number of KiB above 0"))
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
	b := &bench{c: c, cs: cs, replicas: *replicas, timeout: *timeout, settle: *settle}

	switch *workload {
	case "mydaemonset":
		b.daemons(cfg.Host)
		return
	case "nodepool":
		// 1000 nodes take longer to set up than one contender.
		b.timeout = max(b.timeout, 20*time.Minute)
		b.nodePool(cfg.Host, *poolNodes)
		return
	case "sidecarset":
		// -replicas pods one at a time, three times.
		b.timeout = max(b.timeout, 20*time.Minute)
		b.sidecarSetAdmission(cfg.Host, *replicas)
		return
	case "mydaemonset-admission":
		b.mydaemonsetAdmission(cfg.Host, *replicas, *policies)
		return
	case "unrelated-pods":
		// 10,000 pods take longer to create and run than one contender.
		b.timeout = max(b.timeout, 20*time.Minute)
		b.unrelatedPodsMemory(*unrelatedPods, managers, heapLimit{base: *heapBase * (1 << 20), perPod: *heapPerPod * 1024})
		return
	case "imoocpod-clientgo":
		b.imoocPodClientGo(*resultsFile)
		return
	}
	fmt.Printf("Bringing up %d pods, three ways, on %s\n\n", *replicas, cfg.Host)
	raw := b.measure("plain client loop", b.rawLoop)
	rs := b.measure("ReplicaSet (kube-controller-manager)", b.replicaSet)
	ip := b.measure(imoocPodName, b.imoocPod)

	printTable(raw, rs, ip)
	expectTimeAtMost("ImoocPod / ReplicaSet, all created", ratio(ip.allCreated, rs.allCreated), 1, "%.2fx")
	expectTimeAtMost("ImoocPod / ReplicaSet, all Running", ratio(ip.allRunning, rs.allRunning), 1, "%.2fx")
	expectTimeAtMost("ImoocPod / plain loop, all created", ratio(ip.allCreated, raw.allCreated), 1.5, "%.2fx")
	expectTimeAtMost("ImoocPod / plain loop, all Running", ratio(ip.allRunning, raw.allRunning), 1.5, "%.2fx")
	expectAtMost("ImoocPod pod creates", float64(ip.podCreateCalls), float64(*replicas), "%.0f")
	if *resultsFile != "" {
		must(saveResults(*resultsFile, raw, rs, ip))
	}
	reportTargets()
}

const imoocPodName = "ImoocPod (workshop controller)"

// imoocPodClientGo measures the ImoocPod contender once more, with the client-go
// controller running in place of the controller-runtime one, and prints it under the
// figures of the imoocpod run saved in file.
func (b *bench) imoocPodClientGo(file string) {
	earlier, err := loadResults(file)
	must(err)
	var ip *result
	for i := range earlier {
		if earlier[i].name == imoocPodName {
			ip = &earlier[i]
		}
	}
	if ip == nil {
		fail(fmt.Errorf("%s holds no %q figures: run -workload imoocpod -results %s first", file, imoocPodName, file))
	}

	fmt.Printf("Bringing up %d pods with the ImoocPod controller on bare client-go\n\n", b.replicas)
	cg := b.measure("ImoocPod (client-go, solution 12)", b.imoocPod)

	printTable(append(earlier, cg)...)
	fmt.Printf("\nclient-go / controller-runtime: created %.2fx, Running %.2fx, pod creates %d and %d\n",
		ratio(cg.allCreated, ip.allCreated), ratio(cg.allRunning, ip.allRunning), cg.podCreateCalls, ip.podCreateCalls)
	expectAtMost("ImoocPod (client-go) pod creates", float64(cg.podCreateCalls), float64(b.replicas), "%.0f")
	reportTargets()
}

// savedResult is a result as -results holds it.
type savedResult struct {
	Name           string        `json:"name"`
	AllCreated     time.Duration `json:"allCreated"`
	AllRunning     time.Duration `json:"allRunning"`
	PodCreateCalls int           `json:"podCreateCalls"`
}

func saveResults(file string, results ...result) error {
	saved := make([]savedResult, len(results))
	for i, r := range results {
		saved[i] = savedResult{r.name, r.allCreated, r.allRunning, r.podCreateCalls}
	}
	data, err := json.MarshalIndent(saved, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

func loadResults(file string) ([]result, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var saved []savedResult
	if err := json.Unmarshal(data, &saved); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	results := make([]result, len(saved))
	for i, r := range saved {
		results[i] = result{r.Name, r.AllCreated, r.AllRunning, r.PodCreateCalls}
	}
	return results, nil
}

// daemons measures a DaemonSet against a MyDaemonSet: one pod on each Ready node.
func (b *bench) daemons(host string) {
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	var nodes corev1.NodeList
	must(b.c.List(ctx, &nodes))
	b.replicas, b.perNode = 0, true
	for _, node := range nodes.Items {
		if isNodeReady(&node) && !node.Spec.Unschedulable {
			b.replicas++
		}
	}

	fmt.Printf("Bringing up one pod on each of %d nodes, two ways, on %s\n\n", b.replicas, host)
	ds := b.measure("DaemonSet (kube-controller-manager)", b.daemonSet)
	mds := b.measure("MyDaemonSet (workshop controller)", b.myDaemonSet)

	printTable(ds, mds)
	expectTimeAtMost("MyDaemonSet / DaemonSet, all created", ratio(mds.allCreated, ds.allCreated), 1, "%.2fx")
	expectTimeAtMost("MyDaemonSet / DaemonSet, all Running", ratio(mds.allRunning, ds.allRunning), 1, "%.2fx")
	expectAtMost("MyDaemonSet pod creates", float64(mds.podCreateCalls), float64(b.replicas), "%.0f")
	reportTargets()
}

func printTable(results ...result) {
	fmt.Printf("\n%-38s %12s %12s %13s\n", "contender", "all created", "all Running", "pod creates")
	for _, r := range results {
		fmt.Printf("%-38s %11.2fs %11.2fs %13d\n", r.name, r.allCreated.Seconds(), r.allRunning.Seconds(), r.podCreateCalls)
	}
}

type bench struct {
	c        client.Client
	cs       *kubernetes.Clientset
	replicas int
	timeout  time.Duration
	// perNode counts Running pods by node: a contender is done when replicas nodes run
	// a Running pod of it, however many pods it made on the way.
	perNode bool
	// settle is how long the managers get, after the unrelated pods, before their memory
	// is read again.
	settle time.Duration
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
		runningOn := map[string]bool{}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
				if b.perNode {
					runningOn[p.Spec.NodeName] = true
				} else {
					runningOn[p.Name] = true
				}
			}
		}
		running := len(runningOn)
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
	pods := make([]client.Object, b.replicas)
	for i := range pods {
		pods[i] = &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("raw-%d", i), Labels: sel},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
		}
	}
	b.createAll(ctx, pods)
	return labels.SelectorFromSet(sel), nil
}

func (b *bench) replicaSet(ctx context.Context, ns string) (labels.Selector, error) {
	sel := map[string]string{"bench": "replicaset"}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bench"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(int32(b.replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: podTemplate(sel),
		},
	}
	return labels.SelectorFromSet(sel), b.c.Create(ctx, rs)
}

// podTemplate is the pod a ReplicaSet or DaemonSet of the benchmark makes: labelled sel,
// with one container of image.
func podTemplate(sel map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: sel},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
	}
}

// workshopObject is an object of the workshop's kind (of apps.workshop.dev/v1) named
// bench in the namespace ns, with spec.
func workshopObject(kind, ns string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps.workshop.dev/v1",
		"kind":       kind,
		"metadata":   map[string]any{"namespace": ns, "name": "bench"},
		"spec":       spec,
	}}
}

func (b *bench) imoocPod(ctx context.Context, ns string) (labels.Selector, error) {
	ip := workshopObject("ImoocPod", ns, map[string]any{"replicas": int64(b.replicas), "image": image})
	return labels.SelectorFromSet(map[string]string{"apps.workshop.dev/imoocpod": "bench"}), b.c.Create(ctx, ip)
}

// daemonSet asks kube-controller-manager's DaemonSet controller for a pod on every node.
// Its pods carry node affinity for their node, and the scheduler binds them.
func (b *bench) daemonSet(ctx context.Context, ns string) (labels.Selector, error) {
	sel := map[string]string{"bench": "daemonset"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bench"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: podTemplate(sel),
		},
	}
	return labels.SelectorFromSet(sel), b.c.Create(ctx, ds)
}

// myDaemonSet asks the workshop's MyDaemonSet controller for the same, which binds the
// pods itself.
func (b *bench) myDaemonSet(ctx context.Context, ns string) (labels.Selector, error) {
	mds := workshopObject("MyDaemonSet", ns, map[string]any{"image": image})
	return labels.SelectorFromSet(map[string]string{"apps.workshop.dev/mydaemonset": "bench"}), b.c.Create(ctx, mds)
}

// createAll creates objs from 50 goroutines and fails on the first error.
func (b *bench) createAll(ctx context.Context, objs []client.Object) {
	b.parallel(ctx, objs, func(obj client.Object) error { return b.c.Create(ctx, obj) })
}

// parallel calls do for every object from 50 goroutines and fails on the first error.
func (b *bench) parallel(ctx context.Context, objs []client.Object, do func(client.Object) error) {
	work := make(chan client.Object)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range 50 {
		wg.Go(func() {
			for obj := range work {
				if err := do(obj); err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, fmt.Errorf("%s: %w", obj.GetName(), err))
					mu.Unlock()
				}
			}
		})
	}
	for _, obj := range objs {
		if ctx.Err() != nil {
			break
		}
		work <- obj
	}
	close(work)
	wg.Wait()
	must(firstErr)
}

func isNodeReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podCreates reads how many pod creates the API server has served, from its metrics.
func (b *bench) podCreates(ctx context.Context) int {
	return b.requests(ctx, `resource="pods"`, `verb="POST"`, `subresource=""`)
}

// requests reads from the API server's metrics how many requests it has served, of any
// code, whose apiserver_request_total labels include every one of labels.
func (b *bench) requests(ctx context.Context, labels ...string) int {
	raw, err := b.cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	must(err)
	total := 0
	scanner := bufio.NewScanner(bytes.NewReader(raw))
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
lines:
	for scanner.Scan() {
		line := scanner.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") {
			continue
		}
		for _, label := range labels {
			if !strings.Contains(line, label) {
				continue lines
			}
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

func say(format string, args ...any) {
	fmt.Printf("  %s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
