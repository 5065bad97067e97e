package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
