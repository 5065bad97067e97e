package controller

import (
	"context"
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// What countPod makes of one pod the SidecarSet's selector matches, without an API
// server: matched unless it is being deleted or outside the SidecarSet's namespaces,
// injected when its record names the SidecarSet and it runs the sidecar, outdated when
// that record's revision is not the current one.
func TestCountPod(t *testing.T) {
	team := labels.SelectorFromSet(labels.Set{"team": "web"})
	namespaceLabels := map[string]map[string]string{"web": {"team": "web"}, "db": {"team": "db"}}
	now := metav1.Now()
	set := &sidecarsv1.SidecarSet{ObjectMeta: metav1.ObjectMeta{Name: "logging"},
		Spec: sidecarsv1.SidecarSetSpec{Containers: []corev1.Container{{Name: "log-shipper", Image: "busybox:1.37"}}}}
	// injected gives the pod the sidecar and the record value.
	injected := func(value string) func(*corev1.Pod) {
		return func(pod *corev1.Pod) {
			pod.Spec.InitContainers = []corev1.Container{{Name: "log-shipper"}}
			pod.Annotations = map[string]string{sidecars.InjectedAnnotation: value}
		}
	}
	in := func(namespace string) func(*corev1.Pod) {
		return func(pod *corev1.Pod) { pod.Namespace = namespace }
	}
	tests := []struct {
		name              string
		pod               func(*corev1.Pod)
		namespaceSelector labels.Selector
		want              counts
	}{
		{"a pod without a record: matched; only an injected pod can be outdated", nil, nil, counts{Matched: 1}},
		{"a pod of the current revision", injected(`{"logging":"rev-2"}`), nil, counts{Matched: 1, Injected: 1}},
		{"a pod of an older revision", injected(`{"logging":"rev-1"}`), nil, counts{Matched: 1, Injected: 1, Outdated: 1}},
		{"a pod another SidecarSet injected", injected(`{"metrics":"rev-2"}`), nil, counts{Matched: 1}},
		{"a record that does not parse", injected(`{"logging":`), nil, counts{Matched: 1}},
		{"a record without the sidecar", func(pod *corev1.Pod) {
			pod.Annotations = map[string]string{sidecars.InjectedAnnotation: `{"logging":"rev-2"}`}
		}, nil, counts{Matched: 1}},
		// The record names the sidecars the pod was given: a pod of an older revision runs
		// those, whatever the SidecarSet's are now.
		{"a record that names the sidecar", injected(`{"logging":{"rev":"rev-2","containers":["log-shipper"]}}`),
			nil, counts{Matched: 1, Injected: 1}},
		{"a pod injected before the sidecar was renamed", func(pod *corev1.Pod) {
			pod.Spec.InitContainers = []corev1.Container{{Name: "shipper"}}
			pod.Annotations = map[string]string{sidecars.InjectedAnnotation: `{"logging":{"rev":"rev-1","containers":["shipper"]}}`}
		}, nil, counts{Matched: 1, Injected: 1, Outdated: 1}},
		{"a record that names a sidecar the pod lacks", func(pod *corev1.Pod) {
			pod.Annotations = map[string]string{sidecars.InjectedAnnotation: `{"logging":{"rev":"rev-2","containers":["log-shipper"]}}`}
		}, nil, counts{Matched: 1}},
		{"a record that names the pod's own container", func(pod *corev1.Pod) {
			pod.Annotations = map[string]string{sidecars.InjectedAnnotation: `{"logging":{"rev":"rev-2","containers":["app"]}}`}
		}, nil, counts{Matched: 1}},
		{"a pod being deleted", func(pod *corev1.Pod) { pod.DeletionTimestamp = &now }, nil, counts{}},
		{"a pod in kube-system", in("kube-system"), nil, counts{}},
		{"a pod in the manager's namespace", in("operators"), nil, counts{}},
		{"a namespace the namespaceSelector matches", in("web"), team, counts{Matched: 1}},
		{"a namespace it does not match", in("db"), team, counts{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "web-1"},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
			}
			if tt.pod != nil {
				tt.pod(pod)
			}
			var status sidecarsv1.SidecarSetStatus
			countPod(&status, pod, set, "rev-2", sidecars.ExcludedNamespaces("operators"), tt.namespaceSelector, namespaceLabels)
			g.Expect(countsOf(status)).To(Equal(tt.want), "what countPod counts of %s", tt.name)
		})
	}
}

// A SidecarSet stored without the validating webhook may have no selector, or an empty
// one: it selects no pod, as for the pod webhook (sidecars.Selects), and the pass fails
// with an error that names the field, which the Injected condition shows.
func TestAMissingOrEmptySelectorSelectsNoPod(t *testing.T) {
	for name, selector := range map[string]*metav1.LabelSelector{"no selector": nil, "an empty selector": {}} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			set := &sidecarsv1.SidecarSet{Spec: sidecarsv1.SidecarSetSpec{Selector: selector}}
			selector, _, err := selectorsOf(set)
			g.Expect(selector).To(BeNil(), "%s selects no pod: selectorsOf should return no selector to list pods with", name)
			g.Expect(err).To(MatchError(HavePrefix("spec.selector: ")), "%s is an error that names its field", name)
		})
	}
}

// The manager's cache may hand the controller a SidecarSet older than the controller's
// own last status write. A pass from that stale copy must not write a status made of
// the two: here the pass drives Reconcile by hand, through a cache that lags one status
// write (laggingCache), on a SidecarSet the running manager does not see.
func TestAPassFromAStaleCacheWritesTheStatusItCounted(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("stale")
	set := &sidecarsv1.SidecarSet{
		ObjectMeta: metav1.ObjectMeta{Name: value, Labels: map[string]string{testenv.UnmanagedLabel: "true"}},
		Spec: sidecarsv1.SidecarSetSpec{
			Selector:   &metav1.LabelSelector{MatchLabels: map[string]string{caseLabel: value}},
			Containers: []corev1.Container{{Name: "log-shipper", Image: "busybox:1.37"}},
		},
	}
	g.Expect(env.Client().Create(env.Context(), set)).To(Succeed())
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), set) })
	r := &SidecarSetReconciler{
		Client:             newLaggingCache(env.Client()),
		APIReader:          env.Client(),
		Scheme:             env.Scheme(),
		Recorder:           events.NewFakeRecorder(100),
		ExcludedNamespaces: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace),
	}
	pass := func() {
		_, err := r.Reconcile(env.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(set)})
		g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
	}
	// pod makes a pod the SidecarSet selects, with its sidecar and record when injected:
	// the webhook does not see this SidecarSet.
	pod := func(name string, injected bool) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{caseLabel: value}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
		}
		if injected {
			p.Spec.InitContainers = []corev1.Container{{Name: "log-shipper", Image: "busybox:1.37"}}
			p.Annotations = map[string]string{sidecars.InjectedAnnotation: sidecars.FormatInjected(map[string]sidecars.Entry{
				set.Name: {Revision: sidecars.Revision(&set.Spec), Containers: []string{"log-shipper"}}})}
		}
		g.ExpectWithOffset(1, env.Client().Create(env.Context(), p)).To(Succeed())
		return p
	}

	pod("plain-1", false)
	pass()
	g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 1}))
	injected := pod("injected", true)
	pass() // the cache will hand the next pass the SidecarSet as it was before this one's write
	g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 2, Injected: 1}))

	g.Expect(env.Client().Delete(env.Context(), injected, client.GracePeriodSeconds(0))).To(Succeed())
	pod("plain-2", false)
	pass()
	g.Expect(countsOf(statusOf(g, set))).To(Equal(counts{Matched: 2}),
		"a merge patch from the stale copy leaves out injectedPods, 0 there and 0 now, and the API server keeps 1: "+
			"patch with the optimistic lock (client.MergeFromWithOptimisticLock), and on a conflict start again from a fresh read")
}

// A pod whose labels change leaves the SidecarSet's counts; one in another SidecarSet's
// selection joins that one's.
func TestAPodThatLosesTheLabelLeavesTheCounts(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("relabel")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	pods := createPods(g, ns, "pod", value, 2)
	eventuallyCounts(g, set, counts{Matched: 2, Injected: 2})

	patch(g, pods[0], func(pod *corev1.Pod) { pod.Labels[caseLabel] = "elsewhere" })
	eventuallyCounts(g, set, counts{Matched: 1, Injected: 1},
		"the controller should hear of a pod's new labels, through its old ones")
}

// A pod that got no sidecar and then a record it did not earn (anyone who may update a
// pod may write it) is matched, not injected: the controller checks the record against
// the pod's containers.
func TestAForgedRecordIsNotCounted(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("forged")
	early := createPods(g, ns, "early", value, 2)
	set := createSidecarSet(t, g, value, "busybox:1.37")
	eventuallyCounts(g, set, counts{Matched: 2})

	patch(g, early[0], func(pod *corev1.Pod) {
		pod.Annotations = map[string]string{sidecars.InjectedAnnotation: sidecars.FormatInjected(map[string]sidecars.Entry{
			set.Name: {Revision: sidecars.Revision(&set.Spec), Containers: []string{"log-shipper"}},
		})}
	})
	g.Eventually(func(g Gomega) {
		var cached corev1.Pod
		g.Expect(env.Manager().GetCache().Get(env.Context(), client.ObjectKeyFromObject(early[0]), &cached)).To(Succeed())
		g.Expect(cached.Annotations).To(HaveKey(sidecars.InjectedAnnotation))
	}).Should(Succeed(), "the manager's cache should hold the forged record")

	// One pod more, which the webhook injects: the pass that counts it counts the forged
	// one too.
	createPods(g, ns, "late", value, 1)
	eventuallyCounts(g, set, counts{Matched: 3, Injected: 1},
		"of three matched pods only the one with the sidecar is injected, whatever the others' records say")
}

// A namespace that gets the label a SidecarSet's namespace selector wants brings its pods
// into the counts. Its pods do not change: the controller hears of it only by watching
// namespaces.
func TestANamespaceThatGetsTheLabelBringsItsPodsIn(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("namespace")
	createPods(g, ns, "pod", value, 2)
	set := createSidecarSet(t, g, value, "busybox:1.37")
	patch(g, set, func(set *sidecarsv1.SidecarSet) {
		set.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": value}}
	})
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(s.ObservedGeneration).To(Equal(set.Generation))
		g.Expect(countsOf(s)).To(Equal(counts{}))
	}).Should(Succeed(), "no namespace has the label the namespace selector wants")

	var namespace corev1.Namespace
	g.Expect(env.Client().Get(env.Context(), client.ObjectKey{Name: ns}, &namespace)).To(Succeed())
	patch(g, &namespace, func(namespace *corev1.Namespace) { namespace.Labels["team"] = value })
	eventuallyCounts(g, set, counts{Matched: 2},
		"a namespace that gets the label should bring its pods into the counts: watch namespaces, mapped to "+
			"the SidecarSets with a namespace selector")
}

// The status is the controller's. One written behind its back, by someone else or by
// the controller itself from a cache that had not caught up with its own last write, is
// rewritten by the pass its event brings. A status update leaves the generation as it
// was: a controller that hears only of generation changes (GenerationChangedPredicate)
// would leave it wrong for ever.
func TestAStatusWrittenBehindTheControllersBackIsRewritten(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("rewritten")
	createPods(g, ns, "pod", value, 2)
	set := createSidecarSet(t, g, value, "busybox:1.37")
	eventuallyCounts(g, set, counts{Matched: 2})

	var stored sidecarsv1.SidecarSet
	g.Expect(env.Client().Get(env.Context(), client.ObjectKeyFromObject(set), &stored)).To(Succeed())
	patch := client.MergeFrom(stored.DeepCopy())
	stored.Status.MatchedPods, stored.Status.InjectedPods = 7, 7
	g.Expect(env.Client().Status().Patch(env.Context(), &stored, patch)).To(Succeed())
	eventuallyCounts(g, set, counts{Matched: 2},
		"a status update should bring a pass that writes the counts again: watch SidecarSets without GenerationChangedPredicate")
}

// Of the pod updates the controller hears of, only those that can change a count reach
// it: most updates of a pod are the kubelet's writes of its status.
func TestPodChangedLetsThroughOnlyWhatChangesACount(t *testing.T) {
	injected := func() *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "web", Name: "web-1", ResourceVersion: "1",
			Labels:      map[string]string{"app": "web"},
			Annotations: map[string]string{sidecars.InjectedAnnotation: `{"logging":"rev-1"}`},
		}}
	}
	now := metav1.Now()
	tests := []testenv.UpdateCase[*corev1.Pod]{
		testenv.Passes("a new label", func(pod *corev1.Pod) { pod.Labels["tier"] = "front" }),
		testenv.Passes("a label removed", func(pod *corev1.Pod) { delete(pod.Labels, "app") }),
		testenv.Passes("a new record", func(pod *corev1.Pod) {
			pod.Annotations[sidecars.InjectedAnnotation] = `{"logging":"rev-2"}`
		}),
		testenv.Passes("the deletion starts", func(pod *corev1.Pod) { pod.DeletionTimestamp = &now }),
		testenv.Ignores("a status write: a new resourceVersion only", func(pod *corev1.Pod) { pod.ResourceVersion = "2" }),
		testenv.Ignores("another annotation", func(pod *corev1.Pod) { pod.Annotations["note"] = "restarted" }),
		testenv.Ignores("a finalizer", func(pod *corev1.Pod) { pod.Finalizers = []string{"example.com/hold"} }),
	}
	// A new pod can change a count, and so can a pod deleted: ExpectPredicate checks that
	// creates and deletes pass.
	testenv.ExpectPredicate(t, podChanged(), injected, tests)
}

// Pods created before the SidecarSet match it but run no sidecar; the pods created after
// run it. The status counts both, and says which pods lack the sidecars.
func TestTheStatusCountsMatchedAndInjectedPods(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("counts")
	createPods(g, ns, "early", value, 2)
	set := createSidecarSet(t, g, value, "busybox:1.37")

	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 2}), "two pods match, created before the SidecarSet")
		g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("False PodsNotInjected"))
		g.Expect(s.Revision).To(Equal(sidecars.Revision(&set.Spec)))
		g.Expect(s.ObservedGeneration).To(Equal(set.Generation))
	}).Should(Succeed(), "the status of a SidecarSet whose pods predate it")

	late := createPods(g, ns, "late", value, 3)
	g.Expect(recordOf(g, late[0])).To(HaveKey(set.Name), "the webhook injects the pods created after the SidecarSet")
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 5, Injected: 3}))
		g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("False PodsNotInjected"))
		g.Expect(condition(s, sidecarsv1.ConditionUpToDate)).To(Equal("True AllPodsUpToDate"))
	}).Should(Succeed(), "five pods match, three run the sidecar")

	// The early pods go: every matched pod runs the sidecar now.
	for _, name := range []string{"early-0", "early-1"} {
		pod := &corev1.Pod{}
		pod.Namespace, pod.Name = ns, name
		g.Expect(client.IgnoreNotFound(env.Client().Delete(env.Context(), pod, client.GracePeriodSeconds(0)))).To(Succeed())
	}
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 3, Injected: 3}))
		g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("True AllPodsInjected"))
	}).Should(Succeed(), "deleted pods leave the counts")
}

// A pass that finds what the last one wrote sends nothing: the API server drops a patch
// that changes nothing, so no resourceVersion shows such a write; only counting the
// writes does. The pass runs by hand, through a reconciler of the test's own that reads
// the manager's cache, once the running controller has written the status and the cache
// shows it: only the writes of that pass are counted.
func TestAPassWithNothingToDoWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("idle")
	createPods(g, ns, "early", value, 1)
	set := createSidecarSet(t, g, value, "busybox:1.37")
	createPods(g, ns, "late", value, 1)

	cache := env.Manager().GetClient()
	var writes testenv.WriteCounter
	r := &SidecarSetReconciler{
		Client:             writes.Wrap(cache),
		APIReader:          env.Client(),
		Scheme:             env.Scheme(),
		Recorder:           events.NewFakeRecorder(100),
		ExcludedNamespaces: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace),
	}
	idlePass := func(want counts, injected, why string) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			var cached sidecarsv1.SidecarSet
			g.Expect(cache.Get(env.Context(), client.ObjectKeyFromObject(set), &cached)).To(Succeed())
			g.Expect(countsOf(cached.Status)).To(Equal(want), "the counts in the cache")
			g.Expect(condition(cached.Status, sidecarsv1.ConditionInjected)).To(Equal(injected), "the Injected condition in the cache")
			g.Expect(cached.Status.ObservedGeneration).To(Equal(cached.Generation), "status.observedGeneration in the cache")
		}).Should(Succeed(), "the running controller writes the status and the cache shows it: %s", why)
		before := writes.Count()
		result, err := r.Reconcile(env.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(set)})
		g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass's error")
		g.Expect(result).To(Equal(ctrl.Result{}), "a pass with nothing to do should not requeue")
		g.Expect(writes.Count()-before).To(BeZero(), "a pass with nothing to do should write nothing, "+
			"not even an unchanged status (%s): patch only a status that differs from the one the pass read, "+
			"and keep what changes on every pass, such as a time, out of the conditions", why)
	}

	idlePass(counts{Matched: 2, Injected: 1}, "False "+sidecarsv1.ReasonPodsNotInjected, "2 pods match, 1 runs the sidecar")
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name = ns, "early-0"
	g.Expect(env.Client().Delete(env.Context(), pod, client.GracePeriodSeconds(0))).To(Succeed())
	idlePass(counts{Matched: 1, Injected: 1}, "True "+sidecarsv1.ReasonAllPodsInjected, "the one pod that matches runs the sidecar")
}

// A failed pass counted nothing it can trust: it says so in Injected, and leaves UpToDate
// as the last pass that counted set it.
func TestAFailedPassChangesOnlyInjected(t *testing.T) {
	g := NewWithT(t)
	set := &sidecarsv1.SidecarSet{ObjectMeta: metav1.ObjectMeta{Name: "logging", Generation: 3}}
	upToDate := metav1.Condition{Type: sidecarsv1.ConditionUpToDate, Status: metav1.ConditionFalse,
		Reason: sidecarsv1.ReasonOlderRevisions, Message: "2 of 2 injected pods run an older revision",
		ObservedGeneration: 2, LastTransitionTime: metav1.Now()}
	set.Status.Conditions = []metav1.Condition{upToDate}

	setConditions(set, errors.New("listing pods: the cache is stopping"))
	injected := meta.FindStatusCondition(set.Status.Conditions, sidecarsv1.ConditionInjected)
	g.Expect(injected).NotTo(BeNil(), "a failed pass should set the Injected condition")
	g.Expect(condition(set.Status, sidecarsv1.ConditionInjected)).To(Equal("False ReconcileError"))
	g.Expect(injected.Message).To(ContainSubstring("the cache is stopping"), "Injected's message should hold the error")
	g.Expect(injected.ObservedGeneration).To(Equal(set.Generation),
		"a condition's observedGeneration should be the generation of the SidecarSet the pass read")
	g.Expect(set.Status.Conditions).To(ContainElement(upToDate),
		"a failed pass should change only Injected (False, ReconcileError) and return: it counted nothing to set UpToDate from")
}

// The same, through Reconcile: a pass that fails after the last one counted (here, the
// namespaces cannot be listed) leaves the stored counts and revision as they were. The pass
// runs by hand, on a SidecarSet the running manager does not see, through a client whose
// namespace List fails once told to.
func TestAFailedPassKeepsTheCounts(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("failed")
	set := &sidecarsv1.SidecarSet{
		ObjectMeta: metav1.ObjectMeta{Name: value, Labels: map[string]string{testenv.UnmanagedLabel: "true"}},
		Spec: sidecarsv1.SidecarSetSpec{
			Selector:          &metav1.LabelSelector{MatchLabels: map[string]string{caseLabel: value}},
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			Containers:        []corev1.Container{{Name: "log-shipper", Image: "busybox:1.37"}},
		},
	}
	g.Expect(env.Client().Create(env.Context(), set)).To(Succeed())
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), set) })
	// One pod without the sidecar, one with it and the record of an older revision: the
	// webhook does not see this SidecarSet.
	createPods(g, ns, "plain", value, 1)
	older := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "older", Labels: map[string]string{caseLabel: value},
			Annotations: map[string]string{sidecars.InjectedAnnotation: sidecars.FormatInjected(map[string]sidecars.Entry{
				set.Name: {Revision: "0000000000", Containers: []string{"log-shipper"}}})}},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "log-shipper", Image: "busybox:1.36"}},
			Containers:     []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	g.Expect(env.Client().Create(env.Context(), older)).To(Succeed())

	direct, err := client.NewWithWatch(env.Config(), client.Options{Scheme: env.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	failing := false
	r := &SidecarSetReconciler{
		Client: interceptor.NewClient(direct, interceptor.Funcs{
			List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
				if _, ok := list.(*corev1.NamespaceList); ok && failing {
					return errors.New("the cache is stopping")
				}
				return c.List(ctx, list, opts...)
			},
		}),
		APIReader:          env.Client(),
		Scheme:             env.Scheme(),
		Recorder:           events.NewFakeRecorder(100),
		ExcludedNamespaces: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace),
	}
	request := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(set)}
	_, err = r.Reconcile(env.Context(), request)
	g.Expect(err).NotTo(HaveOccurred())
	counted := statusOf(g, set)
	g.Expect(countsOf(counted)).To(Equal(counts{Matched: 2, Injected: 1, Outdated: 1}))

	failing = true
	_, err = r.Reconcile(env.Context(), request)
	g.Expect(err).To(MatchError(ContainSubstring("the cache is stopping")))
	s := statusOf(g, set)
	g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("False ReconcileError"))
	g.Expect(countsOf(s)).To(Equal(countsOf(counted)),
		"a failed pass should leave the counts the last pass stored: count into a status of your own, "+
			"and copy it into set.Status only when the pass succeeds")
	g.Expect(s.Revision).To(Equal(counted.Revision), "a failed pass should leave the revision the last pass stored")
}

// A SidecarSet that gains a sidecar changes no running pod: its pods run the
// sidecars of their revision, which their records name, and count as injected, and
// outdated, not as pods without the sidecars.
func TestASidecarSetThatGainsASidecarCountsItsPodsAsOutdated(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("gains")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	createPods(g, ns, "old", value, 2)
	eventuallyCounts(g, set, counts{Matched: 2, Injected: 2})

	patch(g, set, func(set *sidecarsv1.SidecarSet) {
		set.Spec.Containers = append(set.Spec.Containers, corev1.Container{Name: "metrics-agent", Image: "busybox:1.37"})
	})
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(s.Revision).To(Equal(sidecars.Revision(&set.Spec)))
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 2, Injected: 2, Outdated: 2}))
		g.Expect(condition(s, sidecarsv1.ConditionInjected)).To(Equal("True AllPodsInjected"))
	}).Should(Succeed(), "pods injected before the SidecarSet gained a sidecar run the sidecars their record names: "+
		"injected, and outdated (sidecars.RunsRecorded, not the SidecarSet's current sidecars)")
	g.Consistently(func(g Gomega) {
		g.Expect(eventsOf(g, set)).NotTo(ContainElement(EventPodsNotInjected))
	}, "1s").Should(Succeed(), "a spec change leaves no pod without its sidecars: no PodsNotInjected event")
}

// Changing a SidecarSet changes no running pod: the status counts the pods of the older
// revision, says so in UpToDate, and tells it with one event.
func TestAChangedSidecarSetCountsTheOutdatedPods(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("outdated")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	pods := createPods(g, ns, "old", value, 2)
	oldRevision := sidecars.Revision(&set.Spec)
	eventuallyCounts(g, set, counts{Matched: 2, Injected: 2})

	// A patch, not an update: the controller writes the status, which changes the
	// resourceVersion an update would have to carry.
	patch(g, set, func(set *sidecarsv1.SidecarSet) { set.Spec.Containers[0].Image = "busybox:1.38" })
	env.WaitForCache(g, set)
	g.Eventually(func(g Gomega) {
		s := statusOf(g, set)
		g.Expect(countsOf(s)).To(Equal(counts{Matched: 2, Injected: 2, Outdated: 2}))
		g.Expect(condition(s, sidecarsv1.ConditionUpToDate)).To(Equal("False OlderRevisions"))
		g.Expect(s.Revision).To(Equal(sidecars.Revision(&set.Spec)))
		g.Expect(s.Revision).NotTo(Equal(oldRevision))
	}).Should(Succeed(), "both pods run the older revision")
	g.Expect(recordOf(g, pods[0])[set.Name].Revision).To(Equal(oldRevision), "a running pod is never changed")

	createPods(g, ns, "new", value, 1)
	eventuallyCounts(g, set, counts{Matched: 3, Injected: 3, Outdated: 2}, "a new pod gets the new revision")
	g.Eventually(func(g Gomega) { g.Expect(eventsOf(g, set)).To(ContainElement(EventRevisionChanged)) }).Should(Succeed())
}

// Events tell of changes, once: passes that find the same, and pod updates that change
// no count, write none.
func TestEventsOnlyOnRealChange(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("events")
	createPods(g, ns, "early", value, 1)
	set := createSidecarSet(t, g, value, "busybox:1.37")
	g.Eventually(func(g Gomega) {
		g.Expect(eventsOf(g, set)).To(Equal([]string{EventPodsNotInjected}))
	}).Should(Succeed(), "one PodsNotInjected event when the SidecarSet first finds a pod without its sidecar")

	// More pods, and the kubelet's status updates of a pod: the condition stays False
	// with the same reason, so no second event.
	pods := createPods(g, ns, "late", value, 2)
	pods[0].Status.Phase = corev1.PodRunning
	g.Expect(env.Client().Status().Update(env.Context(), pods[0])).To(Succeed())
	eventuallyCounts(g, set, counts{Matched: 3, Injected: 2})
	g.Consistently(func(g Gomega) {
		g.Expect(eventsOf(g, set)).To(Equal([]string{EventPodsNotInjected}))
	}, "2s").Should(Succeed(), "no event for a change that changed nothing a user should hear of: PodsNotInjected "+
		"is told when the Injected condition turns False, not on every pass that finds it still False")
}
