package controller

import (
	"fmt"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/02-imoocpod-workflow/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

func TestPodPredicatePassesOnlyWhatTheControllerReads(t *testing.T) {
	running := func() *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: "web-abcde", Namespace: "ns", ResourceVersion: "10",
				Labels: map[string]string{NameLabel: "web"},
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: "apps.workshop.dev/v1", Kind: "ImoocPod", Name: "web", UID: "uid-1",
					Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
				}},
			},
			Status: corev1.PodStatus{
				Phase:             corev1.PodRunning,
				Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, RestartCount: 0}},
			},
		}
	}
	tests := []testenv.UpdateCase[*corev1.Pod]{
		testenv.Ignores("only the resourceVersion moved", func(p *corev1.Pod) { p.ResourceVersion = "11" }),
		testenv.Ignores("a container restarted", func(p *corev1.Pod) { p.Status.ContainerStatuses[0].RestartCount = 1 }),
		testenv.Ignores("the pod got an IP", func(p *corev1.Pod) { p.Status.PodIP = "10.0.0.7" }),
		testenv.Ignores("the kubelet probed again", func(p *corev1.Pod) {
			p.Status.Conditions[0].LastProbeTime = metav1.NewTime(time.Unix(1000, 0))
		}),
		testenv.Ignores("an annotation changed", func(p *corev1.Pod) { p.Annotations = map[string]string{"touched": "1"} }),
		testenv.Passes("Ready flipped to False", func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse }),
		testenv.Passes("the Ready condition went away", func(p *corev1.Pod) { p.Status.Conditions = nil }),
		testenv.Passes("the pod finished", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
		testenv.Passes("deletion started", func(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(metav1.NewTime(time.Unix(2000, 0))) }),
		testenv.Passes("a label changed", func(p *corev1.Pod) { p.Labels[NameLabel] = "other" }),
		testenv.Passes("another label was added", func(p *corev1.Pod) { p.Labels["tier"] = "web" }),
		testenv.Passes("the pod was orphaned", func(p *corev1.Pod) { p.OwnerReferences = nil }),
	}
	testenv.ExpectPredicate(t, podChangedPredicate(), running, tests)
}

func TestEventFiltersAreSwitchable(t *testing.T) {
	g := NewWithT(t)
	imoocPods, pods := (&ImoocPodReconciler{FilterEvents: false}).eventFilters()
	g.Expect(imoocPods).To(BeEmpty(), "without --filter-events every ImoocPod event starts a pass")
	g.Expect(pods).To(BeEmpty(), "without --filter-events every pod event starts a pass")
	imoocPods, pods = (&ImoocPodReconciler{FilterEvents: true}).eventFilters()
	g.Expect(imoocPods).NotTo(BeEmpty(), "with --filter-events the ImoocPod watch should have a predicate")
	g.Expect(pods).NotTo(BeEmpty(), "with --filter-events the pod watch should have a predicate")
}

// The same scenario, seen through the filters of both settings: every event the manager's
// informers deliver for the test's namespace goes through the predicates of each watch,
// and each event that passes them all asks for one pass. (The work queue merges requests
// for an ImoocPod that is already waiting, so fewer passes may run; never more.)
func TestFilteringSavesPassesThatFindNothingToDo(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	events := recordEvents(t, g, ns)

	ip := create(g, newImoocPod(ns, "filtered", 5))
	g.Eventually(func(g Gomega) {
		g.Expect(latest(g, ip).Status.Replicas).To(BeEquivalentTo(5), "status.replicas")
	}).Should(Succeed())
	pods := podsOf(g, ip)
	for i, pod := range pods {
		env.MarkReady(g, ns, pod.Name)
		g.Eventually(func(g Gomega) {
			g.Expect(latest(g, ip).Status.ReadyReplicas).To(BeEquivalentTo(i+1), "status.readyReplicas")
		}).Should(Succeed())
	}
	// What happens to pods all day without changing anything this controller reads: a
	// tool annotates them, a container restarts and comes back ready.
	var last []string
	for _, pod := range pods {
		g.Expect(env.Client().Patch(ctx, &pod, client.RawPatch("application/merge-patch+json",
			[]byte(`{"metadata":{"annotations":{"workshop.dev/touched":"yes"}}}`)))).To(Succeed())
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: "app", Image: "registry.k8s.io/pause:3.10", Ready: true, RestartCount: 1,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}},
		}}
		g.Expect(env.Client().Status().Update(ctx, &pod)).To(Succeed())
		last = append(last, pod.ResourceVersion)
	}
	g.Eventually(func(g Gomega) {
		g.Expect(events.resourceVersions()).To(ContainElements(last), "the informers should deliver every update")
	}).Should(Succeed())

	filtered := events.passesAskedFor(&ImoocPodReconciler{FilterEvents: true})
	unfiltered := events.passesAskedFor(&ImoocPodReconciler{FilterEvents: false})
	t.Logf("passes asked for by %d events: %d with --filter-events, %d without", events.len(), filtered, unfiltered)
	g.Expect(filtered).To(BeNumerically("<", unfiltered), "filtering should drop events")
	// 1 ImoocPod create + 5 pod creates + 5 pods turning ready: the filters keep exactly
	// the events that change what a pass finds, and drop the status patches, the
	// annotations and the restarts.
	g.Expect(filtered).To(Equal(11), "the filters should keep exactly the events a pass needs")
}

// SetupWithManager gives the controller its options and each watch its filters. The
// manager of these tests runs with two workers and --filter-events (suite_test.go).
func TestTheControllerRunsWithItsOptionsAndFilters(t *testing.T) {
	g := NewWithT(t)
	g.Expect(controllerMetric(g, "controller_runtime_max_concurrent_reconciles")).To(BeEquivalentTo(2),
		"the controller's workers: SetupWithManager should give it r.MaxConcurrentReconciles (WithOptions)")

	ctx := env.Context()
	ip := create(g, newImoocPod(env.Namespace(t), "options", 2))
	pods := waitForPods(g, ip, 2)
	for _, pod := range pods {
		env.MarkReady(g, ip.Namespace, pod.Name)
	}
	g.Eventually(func(g Gomega) {
		g.Expect(latest(g, ip).Status.ReadyReplicas).To(BeEquivalentTo(2), "status.readyReplicas")
	}).Should(Succeed())

	// Annotations change nothing a pass reads: once the manager's cache has them, and a
	// second more, no pass has run for them. A pass of another test's ImoocPod may run
	// meanwhile, so a try with passes is tried again.
	try := 0
	g.Eventually(func(g Gomega) {
		try++
		value := fmt.Sprintf(`{"metadata":{"annotations":{"workshop.dev/touched":"%d"}}}`, try)
		before := controllerMetric(g, "controller_runtime_reconcile_total")
		for _, obj := range []client.Object{&pods[0], &pods[1], ip} {
			g.Expect(env.Client().Patch(ctx, obj, client.RawPatch("application/merge-patch+json", []byte(value)))).To(Succeed())
		}
		g.Eventually(func(g Gomega) {
			for _, pod := range cachedPods(g, ip) {
				g.Expect(pod.Annotations).To(HaveKeyWithValue("workshop.dev/touched", fmt.Sprint(try)), "the cached pod %s", pod.Name)
			}
			g.Expect(cachedImoocPod(g, ip).Annotations).To(HaveKeyWithValue("workshop.dev/touched", fmt.Sprint(try)))
		}).Should(Succeed())
		time.Sleep(time.Second)
		g.Expect(controllerMetric(g, "controller_runtime_reconcile_total")-before).To(BeZero(), "passes after annotating "+
			"the ImoocPod and its pods: SetupWithManager should give For and Owns the predicates of r.eventFilters "+
			"(builder.WithPredicates)")
	}).WithTimeout(20 * time.Second).Should(Succeed())
}

// controllerMetric sums a controller-runtime metric of the imoocpod controller, read from
// the registry the manager exports on /metrics.
func controllerMetric(g Gomega, name string) float64 {
	families, err := metrics.Registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	sum := 0.0
	for _, family := range families {
		if family.GetName() != name {
			continue
		}
		for _, m := range family.GetMetric() {
			for _, label := range m.GetLabel() {
				if label.GetName() == "controller" && label.GetValue() == "imoocpod" {
					sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// eventLog keeps the events the manager's informers deliver for one namespace.
type eventLog struct {
	mu     sync.Mutex
	events []recordedEvent
}

type recordedEvent struct {
	old, obj client.Object // old is set for updates only
	deleted  bool
}

// recordEvents records, until the test ends, the ImoocPod and pod events of namespace ns
// as the manager's informers, the ones the controller's watches use, deliver them.
func recordEvents(t *testing.T, g Gomega, ns string) *eventLog {
	l := &eventLog{}
	add := func(e recordedEvent) {
		if e.obj.GetNamespace() != ns {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.events = append(l.events, e)
	}
	handler := toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := obj.(client.Object); ok {
				add(recordedEvent{obj: o})
			}
		},
		UpdateFunc: func(oldObj, newObj any) {
			o, okOld := oldObj.(client.Object)
			n, okNew := newObj.(client.Object)
			if okOld && okNew {
				add(recordedEvent{old: o, obj: n})
			}
		},
		DeleteFunc: func(obj any) {
			if o, ok := obj.(client.Object); ok {
				add(recordedEvent{obj: o, deleted: true})
			}
		},
	}
	for _, kind := range []client.Object{&appsv1.ImoocPod{}, &corev1.Pod{}} {
		informer, err := env.Manager().GetCache().GetInformer(env.Context(), kind)
		g.Expect(err).NotTo(HaveOccurred())
		registration, err := informer.AddEventHandler(handler)
		g.Expect(err).NotTo(HaveOccurred())
		t.Cleanup(func() { _ = informer.RemoveEventHandler(registration) })
	}
	return l
}

func (l *eventLog) snapshot() []recordedEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]recordedEvent(nil), l.events...)
}

func (l *eventLog) len() int { return len(l.snapshot()) }

func (l *eventLog) resourceVersions() []string {
	var rvs []string
	for _, e := range l.snapshot() {
		rvs = append(rvs, e.obj.GetResourceVersion())
	}
	return rvs
}

// passesAskedFor counts the recorded events that pass every predicate r's watches use.
func (l *eventLog) passesAskedFor(r *ImoocPodReconciler) int {
	imoocPodFilters, podFilters := r.eventFilters()
	n := 0
	for _, e := range l.snapshot() {
		filters := podFilters
		if _, ok := e.obj.(*appsv1.ImoocPod); ok {
			filters = imoocPodFilters
		}
		if passesAll(filters, e) {
			n++
		}
	}
	return n
}

func passesAll(filters []predicate.Predicate, e recordedEvent) bool {
	for _, p := range filters {
		var ok bool
		switch {
		case e.deleted:
			ok = p.Delete(event.DeleteEvent{Object: e.obj})
		case e.old != nil:
			ok = p.Update(event.UpdateEvent{ObjectOld: e.old, ObjectNew: e.obj})
		default:
			ok = p.Create(event.CreateEvent{Object: e.obj})
		}
		if !ok {
			return false
		}
	}
	return true
}
