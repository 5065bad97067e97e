package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv2 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v2"
)

// The helpers of the tests that run passes of Reconcile themselves, beside the manager
// or instead of it, and read what the manager's cache shows them.

func requestFor(obj client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}

// cachedPods lists the pods of ip's namespace as the manager's cache shows them.
func cachedPods(g Gomega, ip *appsv2.ImoocPod) []corev1.Pod {
	var pods corev1.PodList
	g.Expect(env.Manager().GetClient().List(env.Context(), &pods, client.InNamespace(ip.Namespace))).To(Succeed())
	return pods.Items
}

// cachedImoocPod reads ip as the manager's cache shows it.
func cachedImoocPod(g Gomega, ip *appsv2.ImoocPod) *appsv2.ImoocPod {
	var cached appsv2.ImoocPod
	g.Expect(env.Manager().GetClient().Get(env.Context(), client.ObjectKeyFromObject(ip), &cached)).To(Succeed())
	return &cached
}

// waitUntilSettled waits until the manager's cache shows the given number of pods in
// ip's namespace and its copy of ip has not changed for a second: the cache has caught
// up with the creates, and the running controller has written all it had to. That
// second is the wait's own, on top of the controller's.
func waitUntilSettled(g Gomega, ip *appsv2.ImoocPod, pods int) {
	g.EventuallyWithOffset(1, func(g Gomega) {
		g.Expect(len(cachedPods(g, ip))).To(Equal(pods), "pods in the cache")
	}).Should(Succeed())
	const quiet = time.Second
	last := ""
	g.Eventually(func(g Gomega) {
		now := cachedImoocPod(g, ip).ResourceVersion
		same := now == last
		last = now
		g.Expect(same).To(BeTrue(), "ImoocPod %s should stop changing once the controller has nothing left to do", ip.Name)
	}).WithPolling(quiet).WithTimeout(testenv.EventuallyTimeout + quiet).Should(Succeed())
}

// idlePasses returns a function that runs one pass for ip and fails the test if the pass
// wrote anything or asked to requeue. Its reconciler, its own and reading the manager's
// cache, counts the writes of that pass only: the running controller may still be
// finishing a pass that began before the cache showed the status it had just written.
func idlePasses(t *testing.T, g Gomega, ip *appsv2.ImoocPod) func(why string) {
	var writes testenv.WriteCounter
	r := &ImoocPodReconciler{Client: writes.Wrap(env.Manager().GetClient()), Scheme: env.Scheme()}
	return func(why string) {
		t.Helper()
		before := writes.Count()
		result, err := r.Reconcile(env.Context(), requestFor(ip))
		g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass's error")
		g.Expect(result).To(Equal(ctrl.Result{}), "a pass with nothing to do should not requeue")
		g.Expect(writes.Count()-before).To(BeZero(), "a pass with nothing to do should write nothing, "+
			"not even the status it found unchanged: "+why)
	}
}
