package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// How events reach a pass. First the predicates and the map function, called directly;
// then the running manager: an event it watches (a node, a MyDaemonSet, a pod) starts a
// pass, and the test waits for what the pass does. The tests where only a node changes
// come first, then whole scenarios.

func TestNodePredicatePassesOnlyWhatTheControllerReads(t *testing.T) {
	ready := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: "node-1", ResourceVersion: "10",
				Labels: map[string]string{"kubernetes.io/os": "linux", "disk": "ssd"},
			},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{
					{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
						LastHeartbeatTime: metav1.NewTime(time.Unix(1000, 0))},
					{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse,
						LastHeartbeatTime: metav1.NewTime(time.Unix(1000, 0))},
				},
				Allocatable: corev1.ResourceList{},
			},
		}
	}
	tests := []testenv.UpdateCase[*corev1.Node]{
		testenv.Ignores("only the resourceVersion moved", func(n *corev1.Node) { n.ResourceVersion = "11" }),
		testenv.Ignores("a heartbeat", func(n *corev1.Node) {
			for i := range n.Status.Conditions {
				n.Status.Conditions[i].LastHeartbeatTime = metav1.NewTime(time.Unix(1010, 0))
			}
		}),
		testenv.Ignores("an annotation changed", func(n *corev1.Node) { n.Annotations = map[string]string{"touched": "1"} }),
		testenv.Ignores("the kubelet reported its images", func(n *corev1.Node) {
			n.Status.Images = []corev1.ContainerImage{{Names: []string{pauseImage}}}
		}),
		testenv.Ignores("memory pressure came", func(n *corev1.Node) { n.Status.Conditions[1].Status = corev1.ConditionTrue }),
		testenv.Passes("a label was added", func(n *corev1.Node) { n.Labels["zone"] = "a" }),
		testenv.Passes("a label changed", func(n *corev1.Node) { n.Labels["disk"] = "hdd" }),
		testenv.Passes("a label was removed", func(n *corev1.Node) { delete(n.Labels, "disk") }),
		testenv.Passes("the node was cordoned", func(n *corev1.Node) { n.Spec.Unschedulable = true }),
		testenv.Passes("a taint was added", func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoExecute}}
		}),
		testenv.Passes("Ready went Unknown", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionUnknown }),
		testenv.Passes("the Ready condition went away", func(n *corev1.Node) { n.Status.Conditions = n.Status.Conditions[1:] }),
	}
	testenv.ExpectPredicate(t, nodeChangedPredicate(), ready, tests)
}

func TestDaemonPodPredicateSeesAnImageChange(t *testing.T) {
	g := NewWithT(t)
	oldPod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}}}
	newPod := oldPod.DeepCopy()
	newPod.Spec.Containers[0].Image = newPauseImage
	g.Expect(daemonPodChangedPredicate().Update(event.UpdateEvent{ObjectOld: oldPod, ObjectNew: newPod})).To(BeTrue(),
		"a pod whose image changed in place must be replaced")
	newPod = oldPod.DeepCopy()
	newPod.ResourceVersion = "2"
	g.Expect(daemonPodChangedPredicate().Update(event.UpdateEvent{ObjectOld: oldPod, ObjectNew: newPod})).To(BeFalse())
}

// The map function is called with nodes that need not exist: it reads only their name
// and labels, and the MyDaemonSets and pods of the API server.
func TestNodeEventsReachOnlyTheMyDaemonSetsTheyConcern(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	web := unmanaged(newMyDaemonSet(ns, "web", map[string]string{"role": "web"}))
	db := unmanaged(newMyDaemonSet(ns, "db", map[string]string{"role": "db"}))
	for _, mds := range []*appsv1.MyDaemonSet{web, db} {
		g.Expect(env.Client().Create(ctx, mds)).To(Succeed())
	}
	r := &MyDaemonSetReconciler{Client: env.Client(), Scheme: env.Scheme()}
	node := func(name, role string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: ns + "-" + name, Labels: map[string]string{testNodeLabel: ns, "role": role},
		}}
	}

	g.Expect(r.mydaemonsetsForNode(ctx, node("n1", "web"))).To(ConsistOf(requestFor(web)),
		"a node labelled role=web concerns the MyDaemonSet web only")
	g.Expect(r.mydaemonsetsForNode(ctx, node("n1", "db"))).To(ConsistOf(requestFor(db)),
		"a node labelled role=db concerns the MyDaemonSet db only")
	g.Expect(r.mydaemonsetsForNode(ctx, node("n1", "cache"))).To(BeEmpty(),
		"a node labelled role=cache concerns no MyDaemonSet")

	// A pod of db on a node whose labels match neither: db placed it when they matched.
	onNode := node("n2", "cache")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(db.Name, onNode.Name)},
		Spec: corev1.PodSpec{
			NodeName:   onNode.Name,
			Containers: []corev1.Container{{Name: "app", Image: pauseImage}},
		},
	}
	g.Expect(controllerutil.SetControllerReference(db, pod, env.Scheme())).To(Succeed())
	g.Expect(env.Client().Create(ctx, pod)).To(Succeed())
	g.Expect(r.mydaemonsetsForNode(ctx, onNode)).To(ConsistOf(requestFor(db)),
		"a node concerns the MyDaemonSets that have a pod on it, whatever its labels")

	// What the watch does with an update: the node's labels moved from role=web to
	// role=cache, and the MyDaemonSet web must hear of it to remove its pod.
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer queue.ShutDown()
	handler.EnqueueRequestsFromMapFunc(r.mydaemonsetsForNode).Update(ctx,
		event.UpdateEvent{ObjectOld: node("n1", "web"), ObjectNew: node("n1", "cache")}, queue)
	var queued []reconcile.Request
	for queue.Len() > 0 {
		req, _ := queue.Get()
		queue.Done(req)
		queued = append(queued, req)
	}
	g.Expect(queued).To(ConsistOf(requestFor(web)),
		"a node that stops matching web reaches web, through its old labels, and nothing else")
}

func TestANewNodeGetsAPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))
	waitForPodsOn(g, mds, names(a))

	b := createNode(g, ns, "b", true, nil)
	waitForPodsOn(g, mds, names(a, b), "the new node %s should get a pod", b.Name)
}

func TestACordonedNodeLosesItsPodUntilUncordoned(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))
	waitForPodsOn(g, mds, names(a, b))

	patchNode(g, b, func(n *corev1.Node) { n.Spec.Unschedulable = true })
	waitForPodsOn(g, mds, names(a), "the cordoned node %s should lose its pod", b.Name)

	removeTerminatingPods(g, ns)
	patchNode(g, b, func(n *corev1.Node) { n.Spec.Unschedulable = false })
	waitForPodsOn(g, mds, names(a, b), "the uncordoned node %s should get its pod back", b.Name)
}

// envtest runs no pod garbage collector, which in a real cluster removes the pods of a
// deleted node after a while: here only the controller's delete makes them go.
func TestADeletedNodeLosesItsPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))
	waitForPodsOn(g, mds, names(a, b))

	g.Expect(env.Client().Delete(env.Context(), b)).To(Succeed())
	waitForPodsOn(g, mds, names(a), "the pod of the deleted node %s should be deleted", b.Name)
}

func TestANodeThatStopsMatchingLosesItsPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, map[string]string{"role": "agent"})
	b := createNode(g, ns, "b", true, map[string]string{"role": "agent"})
	mds := create(g, newMyDaemonSet(ns, "agent", map[string]string{"role": "agent"}))
	waitForPodsOn(g, mds, names(a, b))

	// The new labels match no MyDaemonSet: only the old ones lead the event to "agent".
	patchNode(g, b, func(n *corev1.Node) { n.Labels["role"] = "database" })
	waitForPodsOn(g, mds, names(a), "node %s no longer matches role=agent and should lose its pod", b.Name)
}

func TestMyDaemonSetRunsOnePodOnEveryReadyNode(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	a := createNode(g, ns, "a", true, nil)
	b := createNode(g, ns, "b", true, nil)
	c := createNode(g, ns, "c", false, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))

	waitForPodsOn(g, mds, names(a, b), "one pod on each Ready node that matches, none on the NotReady node %s", c.Name)
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
	waitForPodsOn(g, mds, names(a, b, c), "node %s became Ready and should get a pod", c.Name)
}

func TestMyDaemonSetRespectsTheNodeSelector(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	ssd := createNode(g, ns, "ssd", true, map[string]string{"disk": "ssd"})
	createNode(g, ns, "hdd", true, map[string]string{"disk": "hdd"})
	createNode(g, ns, "plain", true, nil)
	mds := create(g, newMyDaemonSet(ns, "cache", map[string]string{"disk": "ssd"}))

	waitForPodsOn(g, mds, names(ssd), "only the node labelled disk=ssd matches")
}

// A pod bound through spec.nodeName skips the scheduler and its taint checks: the
// controller must keep pods off the nodes whose taints they do not tolerate, or fight
// the taint eviction controller forever over a NoExecute one.
func TestMyDaemonSetRespectsTaints(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	dedicated := createNode(g, ns, "dedicated", true, nil)
	patchNode(g, dedicated, func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "example.com/dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
	})
	plain := createNode(g, ns, "plain", true, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))
	waitForPodsOn(g, mds, names(plain), "an untolerated NoSchedule taint keeps a new pod away")
	// The pass writes the status after its creates: wait for it too.
	g.Eventually(func(g Gomega) {
		g.Expect(latestMyDaemonSet(g, mds).Status.DesiredNumberScheduled).To(BeEquivalentTo(1), "status.desiredNumberScheduled")
	}).Should(Succeed(), "only the node without the untolerated taint is desired")

	patch := client.MergeFrom(mds.DeepCopy())
	mds.Spec.Tolerations = []corev1.Toleration{{Key: "example.com/dedicated", Operator: corev1.TolerationOpExists}}
	g.Expect(env.Client().Patch(ctx, mds, patch)).To(Succeed())
	g.Eventually(func(g Gomega) {
		pods := daemonPodsOf(g, mds)
		g.Expect(nodeNames(pods)).To(ConsistOf(names(dedicated, plain)))
		for _, pod := range pods {
			if pod.Spec.NodeName == dedicated.Name {
				g.Expect(pod.Spec.Tolerations).To(ContainElement(mds.Spec.Tolerations[0]), "the new pod carries the tolerations")
			}
		}
	}).Should(Succeed(), "a tolerated taint lets the pod in")

	patchNode(g, plain, func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoSchedule}}
	})
	g.Consistently(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(dedicated, plain)))
	}, 2*time.Second).Should(Succeed(), "a NoSchedule taint that comes later leaves the running pod alone")

	patchNode(g, plain, func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoExecute}}
	})
	waitForPodsOn(g, mds, names(dedicated), "an untolerated NoExecute taint means no pod on the node")
	removeTerminatingPods(g, ns)
	g.Consistently(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(dedicated)))
	}, 2*time.Second).Should(Succeed(), "no new pod on a node with an untolerated NoExecute taint")
}

// The node lifecycle controller taints a node under memory, disk or PID pressure with
// NoSchedule. A DaemonSet's pods tolerate those taints, so that a node in trouble still
// runs its daemons; so do ours: a pod deleted there gets its replacement.
func TestANodeUnderPressureStillGetsItsPod(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	node := createNode(g, ns, "a", true, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))
	waitForPodsOn(g, mds, names(node))

	patchNode(g, node, func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeMemoryPressure, Effect: corev1.TaintEffectNoSchedule}}
	})
	old := daemonPodsOf(g, mds)[0]
	g.Expect(env.Client().Delete(ctx, &old)).To(Succeed())
	removeTerminatingPods(g, ns)
	g.Eventually(func(g Gomega) {
		pods := daemonPodsOf(g, mds)
		g.Expect(nodeNames(pods)).To(Equal(names(node)), "node %s, under memory pressure, should get a new pod: "+
			"daemonTolerations should tolerate %s as a DaemonSet's pods do", node.Name, corev1.TaintNodeMemoryPressure)
		g.Expect(pods[0].UID).NotTo(Equal(old.UID), "the pod should be a new one")
	}).Should(Succeed())
}

func TestMyDaemonSetStatusCountsNodesAndReadyPods(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	createNode(g, ns, "a", true, nil)
	createNode(g, ns, "b", true, nil)
	createNode(g, ns, "notready", false, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))

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
		env.MarkReady(g, ns, pod.Name)
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
	g.Expect(env.Client().Create(ctx, other)).To(Succeed())
	createNode(g, ns, "a", true, nil)
	createNode(g, ns, "b", true, nil)
	mds := create(g, newMyDaemonSet(ns, "agent", nil))

	cached := env.Manager().GetClient()
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
	ns := env.Namespace(t)
	node := createNode(g, ns, "a", true, nil)
	squatter := createStrayPod(g, ns, podName("agent", node.Name))
	mds := create(g, newMyDaemonSet(ns, "agent", nil))

	g.Eventually(func(g Gomega) {
		got := latestMyDaemonSet(g, mds)
		g.Expect(got).To(haveMyDaemonSetReady(metav1.ConditionFalse, appsv1.ReasonReconcileError))
		ready := meta.FindStatusCondition(got.Status.Conditions, appsv1.ConditionReady)
		g.Expect(ready.Message).To(ContainSubstring("the pod name %s is taken by a pod this MyDaemonSet does not control",
			squatter.Name))
	}).Should(Succeed())
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
	mds := create(g, newMyDaemonSet(ns, "agent", nil))
	isController := true
	orphan := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(mds.Name, node.Name),
			Labels: map[string]string{"app": "agent"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: appsv1.GroupVersion.String(), Kind: "MyDaemonSet",
				Name: mds.Name, UID: mds.UID, Controller: &isController, BlockOwnerDeletion: &isController}}},
		Spec: corev1.PodSpec{NodeName: node.Name, Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.Expect(env.Client().Create(ctx, orphan)).To(Succeed())
	env.MarkReady(g, ns, orphan.Name)
	setNodeReady(g, node, corev1.ConditionTrue)

	g.Eventually(func(g Gomega) {
		var pod corev1.Pod
		g.Expect(env.Client().Get(ctx, client.ObjectKeyFromObject(orphan), &pod)).To(Succeed())
		g.Expect(pod.Labels).To(HaveKeyWithValue(MyDaemonSetLabel, mds.Name),
			"the pod the MyDaemonSet controls should get its label back")
		g.Expect(pod.Labels).To(HaveKeyWithValue("app", "agent"), "the pod's other labels stay")
		g.Expect(pod.UID).To(Equal(orphan.UID), "the pod should be adopted, not replaced")
		got := latestMyDaemonSet(g, mds)
		g.Expect(got.Status.CurrentNumberScheduled).To(BeEquivalentTo(1), "status.currentNumberScheduled")
		g.Expect(got.Status.NumberAvailable).To(BeEquivalentTo(1), "status.numberAvailable")
		g.Expect(got).To(haveMyDaemonSetReady(metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable))
	}).Should(Succeed(), "the node should run its adopted pod within seconds")

	// Nor may the adoption hold the controller up afterwards: the next node gets its pod
	// within seconds too.
	next := createNode(g, ns, "b", true, nil)
	waitForPodsOn(g, mds, names(node, next), "the new node %s should get its pod "+
		"within seconds of the adoption: if not, the pass that found the pod ours expected a create the cache "+
		"will never show (the UID of the pod it sent, which is empty), and every pass waits for the "+
		"expectations' timeout of a minute", next.Name)
}
