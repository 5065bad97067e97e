package controller

import (
	"maps"
	"os"
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme: testenv.Scheme(appsv1.AddToScheme),
		Cache:  CacheOptions(),
		Setup: func(mgr ctrl.Manager) error {
			return (&MyDaemonSetReconciler{
				Client:    mgr.GetClient(),
				Scheme:    mgr.GetScheme(),
				APIReader: mgr.GetAPIReader(),
			}).SetupWithManager(mgr)
		},
	}, &env))
}

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

// create creates obj through the API server and returns it, as the API server stored it.
func create[T client.Object](g Gomega, obj T) T {
	g.ExpectWithOffset(1, env.Client().Create(env.Context(), obj)).To(Succeed())
	return obj
}

// createStrayPod creates the pod ns/name of no MyDaemonSet: someone else's pod, which may
// hold a name a daemon pod needs.
func createStrayPod(g Gomega, ns, name string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
	g.ExpectWithOffset(1, env.Client().Create(env.Context(), pod)).To(Succeed())
	return pod
}

// createNode creates the node "<ns>-<name>" for the test of namespace ns, with the
// test's label and extra. envtest runs no kubelet, so the test plays its part: a ready
// node gets a Ready condition, as a kubelet's first status report would give it.
func createNode(g Gomega, ns, name string, ready bool, extra map[string]string) *corev1.Node {
	nodeLabels := map[string]string{testNodeLabel: ns}
	maps.Copy(nodeLabels, extra)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name, Labels: nodeLabels}}
	g.ExpectWithOffset(1, env.Client().Create(env.Context(), node)).To(Succeed())
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
	g.ExpectWithOffset(1, env.Client().Status().Update(env.Context(), node)).To(Succeed())
}

// patchNode changes node with a merge patch, as kubectl cordon and kubectl label do.
func patchNode(g Gomega, node *corev1.Node, change func(*corev1.Node)) {
	patch := client.MergeFrom(node.DeepCopy())
	change(node)
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), node, patch)).To(Succeed())
}

// daemonPodsOf lists, straight from the API server, the pods mds controls that are not
// being deleted.
func daemonPodsOf(g Gomega, mds *appsv1.MyDaemonSet) []corev1.Pod {
	var pods corev1.PodList
	g.ExpectWithOffset(1, env.Client().List(env.Context(), &pods, client.InNamespace(mds.Namespace))).To(Succeed())
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
	g.ExpectWithOffset(1, env.Client().List(env.Context(), &pods, client.InNamespace(ns))).To(Succeed())
	for _, pod := range pods.Items {
		if !pod.DeletionTimestamp.IsZero() {
			g.ExpectWithOffset(1, client.IgnoreNotFound(
				env.Client().Delete(env.Context(), &pod, client.GracePeriodSeconds(0)))).To(Succeed())
		}
	}
}

// latestMyDaemonSet reads mds straight from the API server.
func latestMyDaemonSet(g Gomega, mds *appsv1.MyDaemonSet) *appsv1.MyDaemonSet {
	var got appsv1.MyDaemonSet
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(mds), &got)).To(Succeed())
	return &got
}

// haveMyDaemonSetReady matches a MyDaemonSet whose Ready condition has status and reason.
func haveMyDaemonSetReady(status metav1.ConditionStatus, reason string) types.GomegaMatcher {
	return WithTransform(readyConditionOf, testenv.HaveStatusAndReason(status, reason))
}

// readyConditionOf returns the Ready condition of mds, or an empty one when it has none.
func readyConditionOf(mds *appsv1.MyDaemonSet) metav1.Condition {
	return testenv.ConditionOf(mds.Status.Conditions, appsv1.ConditionReady)
}

// setImage changes spec.image with a merge patch, as kubectl patch does.
func setImage(g Gomega, mds *appsv1.MyDaemonSet, image string) {
	patch := client.MergeFrom(mds.DeepCopy())
	mds.Spec.Image = image
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), mds, patch)).To(Succeed())
}

// unmanaged hides obj from the running manager, for tests that call Reconcile themselves.
func unmanaged[T client.Object](obj T) T {
	obj.SetLabels(map[string]string{testenv.UnmanagedLabel: "true"})
	return obj
}

func requestFor(obj client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}

// runPass runs one pass of r for mds, as the work queue would hand it out, and expects
// it to succeed.
func runPass(g Gomega, r *MyDaemonSetReconciler, mds *appsv1.MyDaemonSet, description ...any) ctrl.Result {
	result, err := r.Reconcile(env.Context(), requestFor(mds))
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred(), description...)
	return result
}

// waitForPodsOn waits until the pods of mds run on the nodes named in nodes, sorted as
// names returns them, and on no other node.
func waitForPodsOn(g Gomega, mds *appsv1.MyDaemonSet, nodes []string, description ...any) {
	g.EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(Equal(nodes), description...)
	}).Should(Succeed())
}
