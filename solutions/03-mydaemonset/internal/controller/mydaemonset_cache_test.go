package controller

import (
	"context"
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/03-mydaemonset/api/apps/v1"
)

func TestTheManagerCachesOnlyItsOwnPods(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	// Someone else's pod, created first: the cache receives the cluster's pods in the
	// order they were written, so once it shows the MyDaemonSet's pods it would show this
	// one too, if it cached it.
	other := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "someone-else", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client.Create(ctx, other)).To(Succeed())
	createNode(g, ns, "a", true, nil)
	createNode(g, ns, "b", true, nil)
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())

	cached := env.Manager.GetClient()
	g.Eventually(func(g Gomega) {
		var pods corev1.PodList
		g.Expect(cached.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{MyDaemonSetLabel: mds.Name})).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(2))
	}).Should(Succeed(), "the MyDaemonSet's pods should reach the manager's cache")
	err := cached.Get(ctx, client.ObjectKeyFromObject(other), &corev1.Pod{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(),
		"a pod without MyDaemonSetLabel should stay out of the manager's cache (CacheOptions), got %v", err)
}

// The cache cannot show a pod of someone else, so when such a pod holds the name a
// daemon pod needs, the controller must ask the API server who holds it, and say so.
func TestAPodOfSomeoneElseHoldingTheNameIsReported(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	node := createNode(g, ns, "a", true, nil)
	squatter := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName("agent", node.Name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client.Create(ctx, squatter)).To(Succeed())
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())

	g.Eventually(func(g Gomega) {
		got := latestMyDaemonSet(g, mds)
		g.Expect(got).To(haveMyDaemonSetReady(metav1.ConditionFalse, appsv1.ReasonReconcileError))
		ready := meta.FindStatusCondition(got.Status.Conditions, appsv1.ConditionReady)
		g.Expect(ready.Message).To(ContainSubstring("the pod name %s is taken by a pod this MyDaemonSet does not control",
			squatter.Name))
	}).Should(Succeed())
}

// isTerminal reports whether controller-runtime would give up on err: it retries no error
// that wraps a TerminalError, even one joined with errors a retry could fix.
func isTerminal(err error) bool {
	return errors.Is(err, reconcile.TerminalError(nil))
}

// A name taken on one node costs that node its pod, and no other: the nodes after it in
// the slow-start order still get theirs, and the pass reports the node it skipped as an
// error only a change of the spec (a new name) can fix.
func TestATakenPodNameSkipsOnlyItsNode(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	c := createNode(g, ns, "c", true, nil)
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	squatter := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(mds.Name, a.Name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client.Create(ctx, squatter)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme(), APIReader: env.Client}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(b, c)),
		"the nodes after the one whose pod name is taken should get their pods in the same pass")
	g.Expect(err).To(MatchError(And(ContainSubstring(a.Name), ContainSubstring(squatter.Name))),
		"the pass should name the node it skipped and the pod that holds the name")
	g.Expect(isTerminal(err)).To(BeTrue(), "only a new name can fix a taken one: nothing to retry; got %v", err)
}

// failingCreates is a client whose creates of the named pods fail as an overloaded API
// server's would: an error a retry fixes.
type failingCreates struct {
	client.Client
	names []string
}

func (f *failingCreates) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	for _, name := range f.names {
		if obj.GetName() == name {
			return apierrors.NewServiceUnavailable("the test refuses this create")
		}
	}
	return f.Client.Create(ctx, obj, opts...)
}

// A taken name must not hide an error a retry can fix: controller-runtime retries no
// error that wraps a terminal one, so the node whose create failed would wait for an
// unrelated event.
func TestATakenNameDoesNotStopTheRetryOfOtherErrors(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	c := createNode(g, ns, "c", true, nil)
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	// a gets its pod in the first batch of the slow start; b and c share the second.
	squatter := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(mds.Name, b.Name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client.Create(ctx, squatter)).To(Succeed())
	c1 := &failingCreates{Client: env.Client, names: []string{podName(mds.Name, c.Name)}}
	r := &MyDaemonSetReconciler{Client: c1, Scheme: env.Client.Scheme(), APIReader: env.Client}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).To(MatchError(ContainSubstring("the test refuses this create")))
	g.Expect(isTerminal(err)).To(BeFalse(), "the failed create of %s must be retried; got %v", c.Name, err)
	g.Expect(err).To(MatchError(ContainSubstring(squatter.Name)), "the taken name is still reported")
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(a)))
}

// A MyDaemonSet deleted and created again under the same name wants the names of the
// pods of its earlier self, which the garbage collector has not deleted yet. That is a
// wait, not a conflict: the pass retries, and says nothing about renaming.
func TestPodsOfAnEarlierMyDaemonSetOfTheSameNameAreWaitedFor(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	// envtest runs no garbage collector: the pod of the earlier MyDaemonSet stays.
	isController := true
	old := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(mds.Name, a.Name),
			Labels: map[string]string{MyDaemonSetLabel: mds.Name},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: appsv1.GroupVersion.String(), Kind: "MyDaemonSet",
				Name: mds.Name, UID: types.UID("00000000-0000-0000-0000-000000000001"), Controller: &isController}}},
		Spec: corev1.PodSpec{NodeName: a.Name, Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client.Create(ctx, old)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme(), APIReader: env.Client}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).To(HaveOccurred(), "the pass should retry until the old pod is gone")
	g.Expect(isTerminal(err)).To(BeFalse(), "the garbage collector frees the name: retry; got %v", err)
	g.Expect(err).NotTo(MatchError(ContainSubstring("rename")), "renaming would not help")
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(b)), "the other node gets its pod")

	g.Expect(env.Client.Delete(ctx, old)).To(Succeed())
	removeTerminatingPods(g, ns)
	g.Eventually(func(g Gomega) {
		_, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(a, b)))
	}).Should(Succeed(), "once the old pod is gone, its node gets a pod of the new MyDaemonSet")
}

// A pod this MyDaemonSet controls but that lacks its label (made by an older manager, or
// relabelled by hand) holds its node's pod name, and the manager's cache, which selects
// on the label, never shows it. The controller must see it through the API server and
// put the label back (adopt it), so that the node has its pod again within seconds
// rather than after the expectations' timeout of minutes.
func TestAnOwnPodWithoutTheLabelIsAdopted(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	// The node is NotReady while the pod is set up, so that the controller does not
	// create the pod first.
	node := createNode(g, ns, "a", false, nil)
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	isController := true
	orphan := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(mds.Name, node.Name),
			Labels: map[string]string{"app": "agent"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: appsv1.GroupVersion.String(), Kind: "MyDaemonSet",
				Name: mds.Name, UID: mds.UID, Controller: &isController, BlockOwnerDeletion: &isController}}},
		Spec: corev1.PodSpec{NodeName: node.Name, Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client.Create(ctx, orphan)).To(Succeed())
	markReady(g, ns, orphan.Name)
	setNodeReady(g, node, corev1.ConditionTrue)

	g.Eventually(func(g Gomega) {
		var pod corev1.Pod
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(orphan), &pod)).To(Succeed())
		g.Expect(pod.Labels).To(HaveKeyWithValue(MyDaemonSetLabel, mds.Name),
			"the pod the MyDaemonSet controls should get its label back")
		g.Expect(pod.Labels).To(HaveKeyWithValue("app", "agent"), "the pod's other labels stay")
		g.Expect(pod.UID).To(Equal(orphan.UID), "the pod should be adopted, not replaced")
		got := latestMyDaemonSet(g, mds)
		g.Expect(got.Status.CurrentNumberScheduled).To(BeEquivalentTo(1), "status.currentNumberScheduled")
		g.Expect(got.Status.NumberAvailable).To(BeEquivalentTo(1), "status.numberAvailable")
		g.Expect(got).To(haveMyDaemonSetReady(metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable))
	}).Should(Succeed(), "the node should run its adopted pod within seconds")
}
