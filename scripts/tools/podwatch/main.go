// Command podwatch watches the pods of a namespace and, when it is stopped (SIGTERM or
// SIGINT), prints the most pods that were ever alive at once: the figure a controller's
// "never more pods than asked for" promise is about. scripts/faults.sh runs it while it
// kills and restarts a manager.
//
// A pod is alive from its creation until it is being deleted (deletionTimestamp set) or
// has finished (Succeeded or Failed), as ReplicaSet and ImoocPod count it. The count is
// taken after every watch event, so no state the API server went through is missed.
//
// With -kill-pid and -kill-at it also sends SIGKILL to that process the moment the
// count of alive pods first reaches -kill-at: a crash in the middle of a scale-up,
// wherever the controller happens to be.
//
// Usage:
//
//	podwatch -namespace faults -selector app=demo [-ready-file F] [-kill-pid P -kill-at N]
//
// It prints one line of JSON: {"events":N,"maxAlive":N,"maxAliveOnANode":N,"node":"..."}.
// With -ready-file it creates the file once its watch has started, so that a script
// knows no event can be missed from then on.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/kube-workshop/operator-workshop/shared/cluster"
)

// result is what podwatch prints.
type result struct {
	Events          int    `json:"events"`
	MaxAlive        int    `json:"maxAlive"`
	MaxAliveOnANode int    `json:"maxAliveOnANode"`
	Node            string `json:"node,omitempty"`
	AliveAtKill     int    `json:"aliveAtKill,omitempty"`
}

// tally counts the alive pods after each event; its methods run on the informer's one
// event goroutine.
type tally struct {
	alive  map[string]string // alive pod name -> its node ("" until scheduled)
	result result
	// killAt and kill: when len(alive) first reaches killAt, kill is called once.
	killAt int
	kill   func()
}

func (t *tally) observe(pod *corev1.Pod, gone bool) {
	t.result.Events++
	if gone || !isAlive(pod) {
		delete(t.alive, pod.Name)
	} else {
		t.alive[pod.Name] = pod.Spec.NodeName
	}
	t.result.MaxAlive = max(t.result.MaxAlive, len(t.alive))
	if t.kill != nil && t.killAt > 0 && len(t.alive) >= t.killAt {
		t.result.AliveAtKill = len(t.alive)
		t.kill()
		t.kill = nil
	}
	onNode := map[string]int{}
	for _, node := range t.alive {
		if node == "" {
			continue
		}
		onNode[node]++
		if onNode[node] > t.result.MaxAliveOnANode {
			t.result.MaxAliveOnANode, t.result.Node = onNode[node], node
		}
	}
}

func isAlive(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil &&
		pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

func main() {
	namespace := flag.String("namespace", "", "the namespace whose pods to watch (required)")
	selector := flag.String("selector", "", "a label selector the pods must match")
	readyFile := flag.String("ready-file", "", "a file to create once the watch has started")
	killPID := flag.Int("kill-pid", 0, "a process to SIGKILL when -kill-at pods are alive")
	killAt := flag.Int("kill-at", 0, "how many alive pods trigger the SIGKILL of -kill-pid")
	flag.Parse()
	if *namespace == "" {
		fmt.Fprintln(os.Stderr, "podwatch: -namespace is required")
		os.Exit(2)
	}
	if (*killPID > 0) != (*killAt > 0) {
		fmt.Fprintln(os.Stderr, "podwatch: -kill-pid and -kill-at go together")
		os.Exit(2)
	}
	var kill func()
	if *killPID > 0 {
		pid := *killPID
		kill = func() {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				fmt.Fprintf(os.Stderr, "podwatch: killing process %d: %v\n", pid, err)
			}
		}
	}
	if err := run(*namespace, *selector, *readyFile, &tally{alive: map[string]string{}, killAt: *killAt, kill: kill}); err != nil {
		fmt.Fprintln(os.Stderr, "podwatch:", err)
		os.Exit(1)
	}
}

func run(namespace, selector, readyFile string, t *tally) error {
	cfg, err := cluster.Config("")
	if err != nil {
		return err
	}
	clientset, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0,
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
	informer := factory.Core().V1().Pods().Informer()
	_, err = informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { t.observe(obj.(*corev1.Pod), false) },
		UpdateFunc: func(_, obj any) { t.observe(obj.(*corev1.Pod), false) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				t.observe(pod, true)
			}
		},
	})
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return fmt.Errorf("the pod watch of namespace %s never synced", namespace)
	}
	if readyFile != "" {
		if err := os.WriteFile(readyFile, nil, 0o644); err != nil {
			return err
		}
	}
	<-ctx.Done()
	// The informer delivers events on one goroutine; stop it before reading the tally.
	factory.Shutdown()
	return json.NewEncoder(os.Stdout).Encode(t.result)
}
