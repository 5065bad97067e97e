package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/03-mydaemonset/api/apps/v1"
)

// testNodeLabel marks the nodes of one test with the test's namespace. Nodes belong to
// the whole cluster and the tests share one: every MyDaemonSet of a test selects on this
// label, so that it never sees another test's nodes. The nodes stay when a test ends,
// like the namespaces (envtest deletes neither).
const testNodeLabel = "test.workshop.dev/namespace"

const (
	pauseImage    = "registry.k8s.io/pause:3.10"
	newPauseImage = "registry.k8s.io/pause:3.9"
)

// newMyDaemonSet returns a MyDaemonSet in namespace ns for the nodes of the test that
// also carry the labels of selector.
func newMyDaemonSet(ns, name string, selector map[string]string) *appsv1.MyDaemonSet {
	nodeSelector := map[string]string{testNodeLabel: ns}
	maps.Copy(nodeSelector, selector)
	return &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: nodeSelector},
	}
}

// createNode creates the node "<ns>-<name>" for the test of namespace ns, with the
// test's label and extra. envtest runs no kubelet, so the test plays its part: a ready
// node gets a Ready condition, as a kubelet's first status report would give it.
func createNode(g Gomega, ns, name string, ready bool, extra map[string]string) *corev1.Node {
	nodeLabels := map[string]string{testNodeLabel: ns}
	maps.Copy(nodeLabels, extra)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name, Labels: nodeLabels}}
	g.ExpectWithOffset(1, env.Client.Create(env.Context(), node)).To(Succeed())
	if ready {
		setNodeReady(g, node, corev1.ConditionTrue)
	}
	return node
}

// setNodeReady sets the node's Ready condition, as its kubelet (or, for False and
// Unknown, the node lifecycle controller) would. The API server gives every new node the
// taint node.kubernetes.io/not-ready:NoSchedule; the node lifecycle controller takes it
// off once the node is Ready, and puts it back when it is not. envtest runs no such
// controller, so this plays its part too.
func setNodeReady(g Gomega, node *corev1.Node, status corev1.ConditionStatus) {
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	taints := slices.DeleteFunc(slices.Clone(node.Spec.Taints), func(t corev1.Taint) bool { return notReady.MatchTaint(&t) })
	if status != corev1.ConditionTrue {
		taints = append(taints, notReady)
	}
	patchNode(g, node, func(n *corev1.Node) { n.Spec.Taints = taints })
	node.Status.Conditions = []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: status, Reason: "Test", LastHeartbeatTime: metav1.Now(),
	}}
	g.ExpectWithOffset(1, env.Client.Status().Update(env.Context(), node)).To(Succeed())
}

// patchNode changes node with a merge patch, as kubectl cordon and kubectl label do.
func patchNode(g Gomega, node *corev1.Node, change func(*corev1.Node)) {
	patch := client.MergeFrom(node.DeepCopy())
	change(node)
	g.ExpectWithOffset(1, env.Client.Patch(env.Context(), node, patch)).To(Succeed())
}

// daemonPodsOf lists, straight from the API server, the pods mds controls that are not
// being deleted.
func daemonPodsOf(g Gomega, mds *appsv1.MyDaemonSet) []corev1.Pod {
	var pods corev1.PodList
	g.ExpectWithOffset(1, env.Client.List(env.Context(), &pods, client.InNamespace(mds.Namespace))).To(Succeed())
	var owned []corev1.Pod
	for _, pod := range pods.Items {
		if metav1.IsControlledBy(&pod, mds) && pod.DeletionTimestamp.IsZero() {
			owned = append(owned, pod)
		}
	}
	return owned
}

// nodeNames returns the nodes the pods are bound to, sorted.
func nodeNames(pods []corev1.Pod) []string {
	names := []string{}
	for _, pod := range pods {
		names = append(names, pod.Spec.NodeName)
	}
	slices.Sort(names)
	return names
}

// names returns the names of the nodes, sorted.
func names(nodes ...*corev1.Node) []string {
	out := []string{}
	for _, node := range nodes {
		out = append(out, node.Name)
	}
	slices.Sort(out)
	return out
}

// removeTerminatingPods plays the kubelet's part in a pod's deletion. The API server
// only marks a pod bound to a node as terminating; the pod goes once the node's kubelet
// has stopped its containers and confirms. envtest has no kubelet, so without this the
// pods stay terminating forever.
func removeTerminatingPods(g Gomega, ns string) {
	var pods corev1.PodList
	g.ExpectWithOffset(1, env.Client.List(env.Context(), &pods, client.InNamespace(ns))).To(Succeed())
	for _, pod := range pods.Items {
		if !pod.DeletionTimestamp.IsZero() {
			g.ExpectWithOffset(1, client.IgnoreNotFound(
				env.Client.Delete(env.Context(), &pod, client.GracePeriodSeconds(0)))).To(Succeed())
		}
	}
}

// latestMyDaemonSet reads mds straight from the API server.
func latestMyDaemonSet(g Gomega, mds *appsv1.MyDaemonSet) *appsv1.MyDaemonSet {
	var got appsv1.MyDaemonSet
	g.ExpectWithOffset(1, env.Client.Get(env.Context(), client.ObjectKeyFromObject(mds), &got)).To(Succeed())
	return &got
}

// haveMyDaemonSetReady matches a MyDaemonSet whose Ready condition has status and reason.
func haveMyDaemonSetReady(status metav1.ConditionStatus, reason string) types.GomegaMatcher {
	return WithTransform(func(mds *appsv1.MyDaemonSet) metav1.Condition {
		if c := meta.FindStatusCondition(mds.Status.Conditions, appsv1.ConditionReady); c != nil {
			return *c
		}
		return metav1.Condition{}
	}, And(HaveField("Status", status), HaveField("Reason", reason)))
}

// setImage changes spec.image with a merge patch, as kubectl patch does.
func setImage(g Gomega, mds *appsv1.MyDaemonSet, image string) {
	patch := client.MergeFrom(mds.DeepCopy())
	mds.Spec.Image = image
	g.ExpectWithOffset(1, env.Client.Patch(env.Context(), mds, patch)).To(Succeed())
}

// unmanaged hides obj from the running manager, for tests that call Reconcile themselves.
func unmanaged[T client.Object](obj T) T {
	obj.SetLabels(map[string]string{testenv.UnmanagedLabel: "true"})
	return obj
}

func requestFor(obj client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}

// markReady plays the kubelet: the pod runs and is ready.
func markReady(g Gomega, ns, name string) {
	var pod corev1.Pod
	g.ExpectWithOffset(1, env.Client.Get(env.Context(), client.ObjectKey{Namespace: ns, Name: name}, &pod)).To(Succeed())
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	g.ExpectWithOffset(1, env.Client.Status().Update(env.Context(), &pod)).To(Succeed())
}

// frozenPodList is a client whose pod lists never change after the first one: a cache
// that has stopped seeing events.
type frozenPodList struct {
	client.Client
	frozen *corev1.PodList
}

func (f *frozenPodList) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	pods, ok := list.(*corev1.PodList)
	if !ok {
		return f.Client.List(ctx, list, opts...)
	}
	if f.frozen == nil {
		f.frozen = &corev1.PodList{}
		if err := f.Client.List(ctx, f.frozen, opts...); err != nil {
			return err
		}
	}
	f.frozen.DeepCopyInto(pods)
	return nil
}

// terminatingNamespace creates a namespace with obj in it, then deletes the namespace.
// envtest runs no namespace controller, so the namespace stays Terminating, refusing
// every new object, for the rest of the run.
func terminatingNamespace(g Gomega, obj client.Object) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "terminating-"}}
	g.ExpectWithOffset(1, env.Client.Create(env.Context(), ns)).To(Succeed())
	obj.SetNamespace(ns.Name)
	g.ExpectWithOffset(1, env.Client.Create(env.Context(), obj)).To(Succeed())
	g.ExpectWithOffset(1, env.Client.Delete(env.Context(), ns)).To(Succeed())
}

func TestMyDaemonSetRunsOnePodOnEveryReadyNode(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	c := createNode(g, ns, "c", false, nil)
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())

	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b)),
			"one pod on each Ready node that matches, none on the NotReady node %s", c.Name)
	}).Should(Succeed())
	for _, pod := range daemonPodsOf(g, mds) {
		g.Expect(pod.Name).To(Equal("agent-"+pod.Spec.NodeName), "the pod's name comes from its node")
		g.Expect(pod.Labels).To(HaveKeyWithValue(MyDaemonSetLabel, "agent"))
		g.Expect(pod.Spec.Containers).To(ConsistOf(HaveField("Image", pauseImage)))
		ref := metav1.GetControllerOf(&pod)
		g.Expect(ref).NotTo(BeNil(), "pod %s should have a controller OwnerReference", pod.Name)
		g.Expect(ref.UID).To(Equal(mds.UID))
		g.Expect(ref.BlockOwnerDeletion).To(HaveValue(BeTrue()))
	}

	// A node that becomes Ready is an update of the node, not of the MyDaemonSet or its
	// pods: only the watch of the nodes brings the controller back.
	setNodeReady(g, c, corev1.ConditionTrue)
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b, c)),
			"node %s became Ready and should get a pod", c.Name)
	}).Should(Succeed())
}

func TestMyDaemonSetRespectsTheNodeSelector(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	ssd := createNode(g, ns, "ssd", true, map[string]string{"disk": "ssd"})
	createNode(g, ns, "hdd", true, map[string]string{"disk": "hdd"})
	createNode(g, ns, "plain", true, nil)
	mds := newMyDaemonSet(ns, "cache", map[string]string{"disk": "ssd"})
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())

	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(ssd)), "only the node labelled disk=ssd matches")
	}).Should(Succeed())
}

func TestANewNodeGetsAPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a))) }).Should(Succeed())

	b := createNode(g, ns, "b", true, nil)
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b)), "the new node %s should get a pod", b.Name)
	}).Should(Succeed())
}

func TestACordonedNodeLosesItsPodUntilUncordoned(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b))) }).Should(Succeed())

	patchNode(g, b, func(n *corev1.Node) { n.Spec.Unschedulable = true })
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a)), "the cordoned node %s should lose its pod", b.Name)
	}).Should(Succeed())

	removeTerminatingPods(g, ns)
	patchNode(g, b, func(n *corev1.Node) { n.Spec.Unschedulable = false })
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b)), "the uncordoned node %s should get its pod back", b.Name)
	}).Should(Succeed())
}

// envtest runs no pod garbage collector, which in a real cluster removes the pods of a
// deleted node after a while: here only the controller's delete makes them go.
func TestADeletedNodeLosesItsPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b))) }).Should(Succeed())

	g.Expect(env.Client.Delete(env.Context(), b)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a)), "the pod of the deleted node %s should be deleted", b.Name)
	}).Should(Succeed())
}

func TestANodeThatStopsMatchingLosesItsPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, map[string]string{"role": "agent"})
	b := createNode(g, ns, "b", true, map[string]string{"role": "agent"})
	mds := newMyDaemonSet(ns, "agent", map[string]string{"role": "agent"})
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b))) }).Should(Succeed())

	// The new labels match no MyDaemonSet: only the old ones lead the event to "agent".
	patchNode(g, b, func(n *corev1.Node) { n.Labels["role"] = "database" })
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a)),
			"node %s no longer matches role=agent and should lose its pod", b.Name)
	}).Should(Succeed())
}

func TestMyDaemonSetStatusCountsNodesAndReadyPods(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	createNode(g, ns, "a", true, nil)
	createNode(g, ns, "b", true, nil)
	createNode(g, ns, "notready", false, nil)
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())

	g.Eventually(func(g Gomega) {
		got := latestMyDaemonSet(g, mds)
		g.Expect(got.Status.DesiredNumberScheduled).To(BeEquivalentTo(2), "status.desiredNumberScheduled counts the Ready nodes that match")
		g.Expect(got.Status.CurrentNumberScheduled).To(BeEquivalentTo(2), "status.currentNumberScheduled")
		g.Expect(got.Status.UpdatedNumberScheduled).To(BeEquivalentTo(2), "status.updatedNumberScheduled")
		g.Expect(got.Status.NumberAvailable).To(BeZero(), "no pod is ready yet")
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), "status.observedGeneration")
		g.Expect(got).To(haveMyDaemonSetReady(metav1.ConditionFalse, appsv1.ReasonPodsNotReady), "the Ready condition")
	}).Should(Succeed())

	// envtest runs no kubelet: play its part, one pod at a time.
	for i, pod := range daemonPodsOf(g, mds) {
		markReady(g, ns, pod.Name)
		g.Eventually(func(g Gomega) {
			g.Expect(latestMyDaemonSet(g, mds).Status.NumberAvailable).To(BeEquivalentTo(i+1),
				"status.numberAvailable should count pod %s once it is ready", pod.Name)
		}).Should(Succeed())
	}
	g.Eventually(func(g Gomega) {
		g.Expect(latestMyDaemonSet(g, mds)).To(haveMyDaemonSetReady(metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable),
			"the Ready condition")
	}).Should(Succeed())
}

// kubectl get shows the counts through the printer columns' JSONPaths, which print
// <none> for a field the object lacks: a count of 0 must be in the object, not left out.
func TestMyDaemonSetStatusHoldsCountsOfZero(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	mds := newMyDaemonSet(ns, "nowhere", map[string]string{"role": "none"})
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())

	g.Eventually(func(g Gomega) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(appsv1.GroupVersion.WithKind("MyDaemonSet"))
		g.Expect(env.Client.Get(env.Context(), client.ObjectKeyFromObject(mds), got)).To(Succeed())
		g.Expect(got.Object).To(HaveKeyWithValue("status", HaveKey("conditions")), "the status after a pass")
		for _, field := range []string{"desiredNumberScheduled", "currentNumberScheduled", "updatedNumberScheduled", "numberAvailable"} {
			count, found, err := unstructured.NestedInt64(got.Object, "status", field)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(found).To(BeTrue(), "status.%s of a MyDaemonSet that matches no node should be 0, not "+
				"missing (kubectl get would show <none>)", field)
			g.Expect(count).To(BeZero(), "status.%s", field)
		}
	}).Should(Succeed())
}

func TestMyDaemonSetIdlePassWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	createNode(g, ns, "a", true, nil)
	createNode(g, ns, "b", true, nil)
	mds := newMyDaemonSet(ns, "idle", nil)
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())

	// A reconciler of its own reads the manager's cache, so that only the writes of its
	// passes are counted.
	cache := env.Manager.GetClient()
	var writes testenv.WriteCounter
	r := &MyDaemonSetReconciler{Client: writes.Wrap(cache), Scheme: env.Client.Scheme()}
	idlePass := func(why string) {
		t.Helper()
		before := writes.Count()
		result, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result).To(Equal(ctrl.Result{}), "a pass with nothing to do should not requeue")
		g.Expect(writes.Count()-before).To(BeZero(), "a pass with nothing to do should write nothing: "+why)
	}
	settled := func(available int) {
		t.Helper()
		g.Eventually(func(g Gomega) {
			var cached appsv1.MyDaemonSet
			g.Expect(cache.Get(ctx, client.ObjectKeyFromObject(mds), &cached)).To(Succeed())
			g.Expect(cached.Status.CurrentNumberScheduled).To(BeEquivalentTo(2), "status.currentNumberScheduled")
			g.Expect(cached.Status.NumberAvailable).To(BeEquivalentTo(available), "status.numberAvailable")
			g.Expect(cached.Status.ObservedGeneration).To(Equal(cached.Generation), "status.observedGeneration")
			var pods corev1.PodList
			g.Expect(cache.List(ctx, &pods, client.InNamespace(ns))).To(Succeed())
			readyPods := 0
			for _, pod := range pods.Items {
				if podcontrol.IsPodReady(&pod) {
					readyPods++
				}
			}
			g.Expect(readyPods).To(Equal(available), "ready pods in the cache")
		}).Should(Succeed())
	}

	settled(0)
	idlePass("2 nodes, 2 pods, none ready")
	for _, pod := range daemonPodsOf(g, mds) {
		markReady(g, ns, pod.Name)
	}
	settled(2)
	idlePass("2 nodes, 2 ready pods")
}

// Passes driven by hand, with the test playing the kubelet in between, one step at a
// time: after every pass at most one node is without a ready pod.
func TestAnImageChangeReplacesOnePodAtATime(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	nodes := []*corev1.Node{
		createNode(g, ns, "a", true, nil), createNode(g, ns, "b", true, nil), createNode(g, ns, "c", true, nil),
	}
	mds := unmanaged(newMyDaemonSet(ns, "roll", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme()}
	pass := func() {
		t.Helper()
		result, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result).To(Equal(ctrl.Result{}))
	}

	pass()
	pods := daemonPodsOf(g, mds)
	g.Expect(nodeNames(pods)).To(Equal(names(nodes...)))
	for _, pod := range pods {
		markReady(g, ns, pod.Name)
	}

	setImage(g, mds, newPauseImage)
	var passes, deletes int
	for {
		g.Expect(passes).To(BeNumerically("<", 30), "the rollout should be done after a few passes per node")
		pass()
		passes++
		pods := daemonPodsOf(g, mds)
		ready, updated := 0, 0
		for _, pod := range pods {
			if podcontrol.IsPodReady(&pod) {
				ready++
			}
			if podImage(&pod) == newPauseImage {
				updated++
			}
		}
		g.Expect(len(nodes)-ready).To(BeNumerically("<=", maxUnavailable),
			"after pass %d: %d of %d nodes have a ready pod; the rolling budget lets at most %d node go without",
			passes, ready, len(nodes), maxUnavailable)
		if ready == len(nodes) && updated == len(nodes) {
			break
		}
		// Play the kubelet, one step: finish the deletions under way, or else make one
		// new pod ready.
		if terminating := terminatingPods(g, ns); terminating > 0 {
			deletes += terminating
			removeTerminatingPods(g, ns)
			continue
		}
		for _, pod := range pods {
			if !podcontrol.IsPodReady(&pod) {
				markReady(g, ns, pod.Name)
				break
			}
		}
	}
	g.Expect(deletes).To(Equal(len(nodes)), "each old pod should be deleted once")
	for _, pod := range daemonPodsOf(g, mds) {
		g.Expect(pod.Name).To(Equal(podName(mds.Name, pod.Spec.NodeName)), "the new pod takes the old one's name")
	}
}

// Outdated pods that are not ready cost no availability, so the rolling budget lets
// them all go at once; the burst limit still holds. An image change that follows a
// broken one, on more nodes than maxBurst, deletes maxBurst pods in one pass, and the
// pod events start the next pass for the rest.
func TestAnImageChangeDeletesAtMostABurstOfPodsThatAreNotReady(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	mds := unmanaged(newMyDaemonSet(ns, "burst", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme()}
	// The pods are made here rather than by passes: a pass creates at most maxBurst. A
	// node keeps its pod whether Ready or not, so the nodes need no kubelet's status.
	const nodes = maxBurst + 20
	_, err := podcontrol.InParallel(nodes, func(i int) error {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%04d", ns, i), Labels: map[string]string{testNodeLabel: ns},
		}}
		if err := env.Client.Create(ctx, node); err != nil {
			return err
		}
		pod, err := r.newDaemonPod(mds, node)
		if err != nil {
			return err
		}
		return env.Client.Create(ctx, pod)
	})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() {
		_ = env.Client.DeleteAllOf(context.Background(), &corev1.Node{}, client.MatchingLabels{testNodeLabel: ns})
	})

	setImage(g, mds, newPauseImage)
	_, err = r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(terminatingPods(g, ns)).To(Equal(maxBurst),
		"pods deleted by one pass after the image change on %d nodes whose pods are not ready: "+
			"maxBurst caps the replacements as it caps the removals", nodes)
}

// The cache is frozen before the first pass: every later pass sees no pods at all. The
// fixed pod names would make a second create fail anyway; the expectations save the
// requests.
func TestAStaleCacheWastesNoCreates(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	for _, name := range []string{"a", "b", "c"} {
		createNode(g, ns, name, true, nil)
	}
	mds := unmanaged(newMyDaemonSet(ns, "stale", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	var writes testenv.WriteCounter
	r := &MyDaemonSetReconciler{Client: writes.Wrap(&frozenPodList{Client: env.Client}), Scheme: env.Client.Scheme()}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(daemonPodsOf(g, mds)).To(HaveLen(3))
	afterFirst := writes.Count()
	for pass := range 2 {
		_, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred(), "pass %d", pass+2)
	}
	g.Expect(writes.Count()-afterFirst).To(BeZero(),
		"passes that cannot see their own creates should wait for the cache, not create again")
	g.Expect(daemonPodsOf(g, mds)).To(HaveLen(3))
}

// A MyDaemonSet deleted and created again under the same name is another MyDaemonSet,
// whose pods have the same names. When both events come between two passes, no pass
// sees the first one gone and nothing forgets what it expected. The new one must not
// wait for those pods: here the cache never shows them (it is frozen), as with pods the
// garbage collector took before the cache saw them.
func TestAMyDaemonSetCreatedAgainDoesNotWaitForThePodsOfTheFirst(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	node := createNode(g, ns, "a", true, nil)
	r := &MyDaemonSetReconciler{Client: &frozenPodList{Client: env.Client}, Scheme: env.Client.Scheme()}
	first := unmanaged(newMyDaemonSet(ns, "again", nil))
	g.Expect(env.Client.Create(ctx, first)).To(Succeed())
	_, err := r.Reconcile(ctx, requestFor(first))
	g.Expect(err).NotTo(HaveOccurred(), "the first MyDaemonSet's pass")
	// envtest runs no garbage collector and no kubelet: the test deletes the pod, as they would.
	for _, pod := range daemonPodsOf(g, first) {
		g.Expect(env.Client.Delete(ctx, &pod, client.GracePeriodSeconds(0))).To(Succeed())
	}
	g.Expect(env.Client.Delete(ctx, first)).To(Succeed())

	second := unmanaged(newMyDaemonSet(ns, "again", nil))
	g.Expect(env.Client.Create(ctx, second)).To(Succeed())
	result, err := r.Reconcile(ctx, requestFor(second))
	g.Expect(err).NotTo(HaveOccurred(), "the second MyDaemonSet's pass")
	g.Expect(nodeNames(daemonPodsOf(g, second))).To(Equal(names(node)), "pods of the MyDaemonSet created "+
		"again, after its first pass (it waited %s for the pod of the MyDaemonSet deleted before it: "+
		"expectations must be kept per UID)", result.RequeueAfter)
}

// The reconciler reads pods from a cache that may not show its own deletes yet. Here the
// cache is frozen right after the image change: every pass sees three ready pods of the
// old image. The delete expectations make the later passes wait for the cache (and a
// pass that acted anyway would pick the same pod: planPods walks the nodes in name
// order), so one pod goes, not one per pass.
func TestAStaleCacheNeverSpendsTheRollingBudgetTwice(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	for _, name := range []string{"a", "b", "c"} {
		createNode(g, ns, name, true, nil)
	}
	mds := unmanaged(newMyDaemonSet(ns, "stale", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	_, err := (&MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme()}).Reconcile(ctx, requestFor(mds))
	g.Expect(err).NotTo(HaveOccurred())
	for _, pod := range daemonPodsOf(g, mds) {
		markReady(g, ns, pod.Name)
	}
	setImage(g, mds, newPauseImage)

	r := &MyDaemonSetReconciler{Client: &frozenPodList{Client: env.Client}, Scheme: env.Client.Scheme()}
	for pass := range 3 {
		_, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred(), "pass %d", pass+1)
	}
	g.Expect(terminatingPods(g, ns)).To(Equal(1),
		"passes that cannot see their own delete must not delete another ready pod")
}

func terminatingPods(g Gomega, ns string) int {
	var pods corev1.PodList
	g.ExpectWithOffset(1, env.Client.List(env.Context(), &pods, client.InNamespace(ns))).To(Succeed())
	n := 0
	for _, pod := range pods.Items {
		if !pod.DeletionTimestamp.IsZero() {
			n++
		}
	}
	return n
}

// A DaemonSet keeps its pods on a node that goes NotReady: a network blip should not
// restart every daemon of a node. It just places no new pod there.
func TestANotReadyNodeKeepsItsPod(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme()}

	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b)))

	setNodeReady(g, b, corev1.ConditionUnknown)
	createNode(g, ns, "c", false, nil)
	_, err = r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(names(a, b)),
		"node %s went NotReady and keeps its pod; the NotReady node c gets none", b.Name)
	g.Expect(latestMyDaemonSet(g, mds).Status.DesiredNumberScheduled).To(BeEquivalentTo(2),
		"status.desiredNumberScheduled counts a NotReady node that still runs its pod")
}

func TestAFinishedPodIsReplaced(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme()}
	_, err := r.Reconcile(ctx, requestFor(mds))
	g.Expect(err).NotTo(HaveOccurred())
	pods := daemonPodsOf(g, mds)
	g.Expect(nodeNames(pods)).To(Equal(names(a)))
	failed := pods[0]
	failed.Status.Phase = corev1.PodFailed
	g.Expect(env.Client.Status().Update(ctx, &failed)).To(Succeed())

	// The first pass deletes the finished pod, which frees its name; the second creates
	// the replacement. (A finished pod needs no kubelet to go.)
	for range 2 {
		_, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred())
	}
	pods = daemonPodsOf(g, mds)
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).NotTo(Equal(failed.UID), "the Failed pod should be replaced by a new one")
	g.Expect(pods[0].Status.Phase).NotTo(Equal(corev1.PodFailed))
}

func TestTheAPIServerRejectsBadMyDaemonSets(t *testing.T) {
	ns := env.Namespace(t)
	tests := []struct {
		name    string
		objName string
		spec    map[string]any
		message string
	}{
		{"no image", "", map[string]any{}, "spec.image: Required value"},
		{"an empty image", "", map[string]any{"image": ""}, "spec.image in body should be at least 1 chars long"},
		{"a node selector value that is not a string", "", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"disk": 1}},
			"spec.nodeSelector.disk: Invalid value"},
		{"a name longer than a label value", strings.Repeat("x", 64), map[string]any{"image": pauseImage},
			"a MyDaemonSet's name is at most 63 characters"},
		{"a toleration operator that does not exist", "", map[string]any{"image": pauseImage,
			"tolerations": []any{map[string]any{"key": "k", "operator": "Lt", "value": "1"}}}, "operator must be Equal or Exists"},
		{"a toleration without a key that is not Exists", "", map[string]any{"image": pauseImage,
			"tolerations": []any{map[string]any{"value": "v"}}}, "a toleration without a key must have the operator Exists"},
		{"a toleration with tolerationSeconds", "", map[string]any{"image": pauseImage,
			"tolerations": []any{map[string]any{"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}}},
			"tolerationSeconds is not supported"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			name := tt.objName
			if name == "" {
				name = fmt.Sprintf("bad-%d", i)
			}
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": appsv1.GroupVersion.String(),
				"kind":       "MyDaemonSet",
				"metadata":   map[string]any{"namespace": ns, "name": name},
				"spec":       tt.spec,
			}}
			g.Expect(env.Client.Create(env.Context(), obj)).To(MatchError(ContainSubstring(tt.message)))
		})
	}
}

func TestANamespaceBeingDeletedIsNoErrorForMyDaemonSet(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	createNode(g, ns, "a", true, nil)
	// The MyDaemonSet selects the nodes of ns, but lives in a namespace being deleted.
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	terminatingNamespace(g, mds)
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme()}

	result, err := r.Reconcile(env.Context(), requestFor(mds))
	g.Expect(err).NotTo(HaveOccurred(), "a namespace being deleted refuses new pods, and takes the MyDaemonSet "+
		"with it: there is nothing to retry")
	g.Expect(result).To(Equal(ctrl.Result{}))
	g.Expect(daemonPodsOf(g, mds)).To(BeEmpty())
}
