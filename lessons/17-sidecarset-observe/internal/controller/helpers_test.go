package controller

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
)

// caseLabel selects the pods of one test: SidecarSets are cluster-scoped, so each test's
// SidecarSet selects by a value of its own.
const caseLabel = "test.workshop.dev/case"

var caseCounter atomic.Int64

func newCase(name string) string { return fmt.Sprintf("%s-%d", name, caseCounter.Add(1)) }

// patch makes change to obj and sends the API server a merge patch of what it changed,
// so that the fields the test leaves alone stay as the API server holds them, whatever
// the controller wrote there since obj was read.
func patch[T client.Object](g Gomega, obj T, change func(T)) {
	before := obj.DeepCopyObject().(T)
	change(obj)
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), obj, client.MergeFrom(before))).To(Succeed())
}

// createSidecarSet creates a SidecarSet of one sidecar that selects the pods labelled
// caseLabel=value, deletes it when the test ends, and waits until the manager's cache,
// which the pod webhook reads, holds it.
func createSidecarSet(t *testing.T, g Gomega, value, image string) *sidecarsv1.SidecarSet {
	t.Helper()
	set := &sidecarsv1.SidecarSet{
		ObjectMeta: metav1.ObjectMeta{Name: value},
		Spec: sidecarsv1.SidecarSetSpec{
			Selector:   &metav1.LabelSelector{MatchLabels: map[string]string{caseLabel: value}},
			Containers: []corev1.Container{{Name: "log-shipper", Image: image}},
		},
	}
	g.ExpectWithOffset(1, env.Client().Create(env.Context(), set)).To(Succeed())
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), set) })
	env.WaitForCache(g, set)
	return set
}

// createPods creates n pods labelled caseLabel=value in ns, named prefix-0, prefix-1, ...
func createPods(g Gomega, ns, prefix, value string, n int) []*corev1.Pod {
	var pods []*corev1.Pod
	for i := range n {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", prefix, i), Labels: map[string]string{caseLabel: value}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
		}
		g.ExpectWithOffset(1, env.Client().Create(env.Context(), pod)).To(Succeed())
		pods = append(pods, pod)
	}
	return pods
}

// counts is what `kubectl get sidecarsets` shows of a status.
type counts struct{ Matched, Injected, Outdated int32 }

// statusOf reads a SidecarSet's status straight from the API server.
func statusOf(g Gomega, set *sidecarsv1.SidecarSet) sidecarsv1.SidecarSetStatus {
	var got sidecarsv1.SidecarSet
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(set), &got)).To(Succeed())
	return got.Status
}

func countsOf(s sidecarsv1.SidecarSetStatus) counts {
	return counts{Matched: s.MatchedPods, Injected: s.InjectedPods, Outdated: s.OutdatedPods}
}

// eventuallyCounts waits until the status of set, read from the API server, holds want.
func eventuallyCounts(g Gomega, set *sidecarsv1.SidecarSet, want counts, why ...any) {
	g.EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(countsOf(statusOf(g, set))).To(Equal(want))
	}).Should(Succeed(), why...)
}

// condition returns the status and reason of a condition, "" when it is missing.
func condition(s sidecarsv1.SidecarSetStatus, conditionType string) string {
	c := meta.FindStatusCondition(s.Conditions, conditionType)
	if c == nil {
		return ""
	}
	return string(c.Status) + " " + c.Reason
}

// eventsOf returns the reasons of the events about a SidecarSet, in the order they were
// written. Events about a cluster-scoped object go to the namespace default.
func eventsOf(g Gomega, set *sidecarsv1.SidecarSet) []string {
	var list eventsv1.EventList
	g.ExpectWithOffset(1, env.Client().List(env.Context(), &list, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
	var reasons []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "SidecarSet" && e.Regarding.Name == set.Name {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}

// recordOf reads a pod's injection record from the API server.
func recordOf(g Gomega, pod *corev1.Pod) map[string]sidecars.Entry {
	var got corev1.Pod
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(pod), &got)).To(Succeed())
	return sidecars.Injected(got.Annotations)
}

// laggingCache is a client whose reads of a SidecarSet lag behind the status writes made
// through it, as the manager's cache does until the watch event of a write arrives: after
// each status write, the next Get of that SidecarSet returns it as it was before the
// write. Everything else goes to the client it wraps.
type laggingCache struct {
	client.Client
	mu    sync.Mutex
	stale map[string]*sidecarsv1.SidecarSet
}

func newLaggingCache(c client.Client) *laggingCache {
	return &laggingCache{Client: c, stale: map[string]*sidecarsv1.SidecarSet{}}
}

func (c *laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if set, ok := obj.(*sidecarsv1.SidecarSet); ok {
		c.mu.Lock()
		stale := c.stale[key.Name]
		delete(c.stale, key.Name)
		c.mu.Unlock()
		if stale != nil {
			stale.DeepCopyInto(set)
			return nil
		}
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *laggingCache) Status() client.SubResourceWriter {
	return &laggingStatus{SubResourceWriter: c.Client.Status(), cache: c}
}

type laggingStatus struct {
	client.SubResourceWriter
	cache *laggingCache
}

func (w *laggingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	before := &sidecarsv1.SidecarSet{}
	if err := w.cache.Client.Get(ctx, client.ObjectKeyFromObject(obj), before); err != nil {
		return err
	}
	if err := w.SubResourceWriter.Patch(ctx, obj, patch, opts...); err != nil {
		return err
	}
	w.cache.mu.Lock()
	w.cache.stale[obj.GetName()] = before
	w.cache.mu.Unlock()
	return nil
}
