package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/flowcontrol"
	testclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/04-mydaemonset-webhooks/api/apps/v1"
)

func TestTaintsAllow(t *testing.T) {
	dedicated := corev1.Taint{Key: "example.com/dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	draining := corev1.Taint{Key: "example.com/draining", Effect: corev1.TaintEffectNoExecute}
	preferred := corev1.Taint{Key: "example.com/spare", Effect: corev1.TaintEffectPreferNoSchedule}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
	tolerateDedicated := corev1.Toleration{Key: "example.com/dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu"}
	tolerateAll := corev1.Toleration{Operator: corev1.TolerationOpExists}
	for _, tc := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		start, stay bool
	}{
		{"no taint", nil, nil, true, true},
		{"PreferNoSchedule keeps no pod away", []corev1.Taint{preferred}, nil, true, true},
		{"NoSchedule: no new pod, the old one stays", []corev1.Taint{dedicated}, nil, false, true},
		{"NoSchedule tolerated", []corev1.Taint{dedicated}, []corev1.Toleration{tolerateDedicated}, true, true},
		{"NoExecute: no pod at all", []corev1.Taint{draining}, nil, false, false},
		{"NoExecute and a tolerated NoSchedule", []corev1.Taint{dedicated, draining},
			[]corev1.Toleration{tolerateDedicated}, false, false},
		{"everything tolerated", []corev1.Taint{dedicated, draining}, []corev1.Toleration{tolerateAll}, true, true},
		{"a NotReady node's taint is always tolerated", []corev1.Taint{notReady}, nil, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			mds := &appsv1.MyDaemonSet{Spec: appsv1.MyDaemonSetSpec{Tolerations: tc.tolerations}}
			node := &corev1.Node{Spec: corev1.NodeSpec{Taints: tc.taints}}
			start, stay := taintsAllow(mds, node)
			g.Expect(start).To(Equal(tc.start), "a new pod may start")
			g.Expect(stay).To(Equal(tc.stay), "a running pod may stay")
		})
	}
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
	mds := newMyDaemonSet(ns, "agent", nil)
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(plain)))
	}).Should(Succeed(), "an untolerated NoSchedule taint keeps a new pod away")
	// The pass writes the status after its creates: wait for it too.
	g.Eventually(func(g Gomega) {
		g.Expect(latestMyDaemonSet(g, mds).Status.DesiredNumberScheduled).To(BeEquivalentTo(1), "status.desiredNumberScheduled")
	}).Should(Succeed(), "only the node without the untolerated taint is desired")

	patch := client.MergeFrom(mds.DeepCopy())
	mds.Spec.Tolerations = []corev1.Toleration{{Key: "example.com/dedicated", Operator: corev1.TolerationOpExists}}
	g.Expect(env.Client.Patch(ctx, mds, patch)).To(Succeed())
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
	g.Eventually(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(dedicated)))
	}).Should(Succeed(), "an untolerated NoExecute taint means no pod on the node")
	removeTerminatingPods(g, ns)
	g.Consistently(func(g Gomega) {
		g.Expect(nodeNames(daemonPodsOf(g, mds))).To(ConsistOf(names(dedicated)))
	}, 2*time.Second).Should(Succeed(), "no new pod on a node with an untolerated NoExecute taint")
}

// markFailed plays the kubelet of a pod that failed.
func markFailed(g Gomega, ns, name string) {
	var pod corev1.Pod
	g.ExpectWithOffset(1, env.Client.Get(env.Context(), client.ObjectKey{Namespace: ns, Name: name}, &pod)).To(Succeed())
	pod.Status.Phase = corev1.PodFailed
	g.ExpectWithOffset(1, env.Client.Status().Update(env.Context(), &pod)).To(Succeed())
}

// A pod that keeps failing (a kubelet that rejects it, a crashing init) is replaced
// after a growing wait, like the DaemonSet controller's failed pods, not in a hot loop.
func TestAPodThatKeepsFailingIsReplacedWithBackoff(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	node := createNode(g, ns, "a", true, nil)
	mds := unmanaged(newMyDaemonSet(ns, "agent", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	clock := testclock.NewFakeClock(time.Now())
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme(), APIReader: env.Client,
		FailedPodBackoff: flowcontrol.NewFakeBackOff(time.Minute, 10*time.Minute, clock)}
	name := podName(mds.Name, node.Name)
	pass := func() (time.Duration, []corev1.Pod) {
		res, err := r.Reconcile(ctx, requestFor(mds))
		g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
		removeTerminatingPods(g, ns)
		return res.RequeueAfter, daemonPodsOf(g, mds)
	}

	_, pods := pass()
	g.Expect(pods).To(HaveLen(1))
	first := pods[0].UID
	markFailed(g, ns, name)
	_, _ = pass() // The first failure costs nothing: the pod is deleted at once.
	_, pods = pass()
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).NotTo(Equal(first), "the first failed pod is replaced at once")

	second := pods[0].UID
	markFailed(g, ns, name)
	wait, pods := pass()
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).To(Equal(second), "a second failure within the backoff keeps the failed pod")
	g.Expect(wait).To(BeNumerically("~", time.Minute, time.Second), "the pass comes back when the backoff ends")

	clock.Step(wait + time.Second)
	_, _ = pass()
	_, pods = pass()
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].UID).NotTo(Equal(second), "after the backoff the failed pod is replaced")
	g.Expect(pods[0].Status.Phase).NotTo(Equal(corev1.PodFailed))
}
