package controller

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv2 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v2"
)

// The helpers of the tests. A failure should read in a line or two and name what to fix,
// so the assertions compare names and counts, never whole pods: a pod prints as a
// hundred lines of managedFields.

// newImoocPod returns an ImoocPod asking for replicas pods in namespace ns.
func newImoocPod(ns, name string, replicas int32) *appsv2.ImoocPod {
	return &appsv2.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv2.ImoocPodSpec{Replicas: ptr.To(replicas), Template: appsv2.PodTemplate{
			Spec: appsv2.PodTemplateSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
		}},
	}
}

// podsOf lists, straight from the API server, the pods the ImoocPod controls that are
// not being deleted: what `kubectl get pods` would show. A pod that looks like one of
// the ImoocPod's (its label, a name that starts with the ImoocPod's) but has no
// controller OwnerReference to it fails the caller, naming the missing reference:
// otherwise the count alone would say that the controller made too few pods.
func podsOf(g Gomega, ip *appsv2.ImoocPod) []corev1.Pod {
	var pods corev1.PodList
	g.ExpectWithOffset(1, env.Client.List(env.Context(), &pods, client.InNamespace(ip.Namespace))).To(Succeed())
	var owned []corev1.Pod
	for _, pod := range pods.Items {
		if !metav1.IsControlledBy(&pod, ip) {
			made := pod.Labels[NameLabel] == ip.Name && strings.HasPrefix(pod.Name, ip.Name)
			g.ExpectWithOffset(1, made).To(BeFalse(), "pod %s has the %s label but no controller OwnerReference "+
				"to ImoocPod %s: newPod should call controllerutil.SetControllerReference", pod.Name, NameLabel, ip.Name)
			continue
		}
		if pod.DeletionTimestamp.IsZero() {
			owned = append(owned, pod)
		}
	}
	return owned
}

// waitForPods waits until the controller running in the manager shows n pods for ip,
// and returns them.
func waitForPods(g Gomega, ip *appsv2.ImoocPod, n int) []corev1.Pod {
	var pods []corev1.Pod
	g.EventuallyWithOffset(1, func(g Gomega) {
		pods = podsOf(g, ip)
		g.Expect(len(pods)).To(Equal(n), "the controller should create spec.replicas pods for ImoocPod %s", ip.Name)
	}).Should(Succeed())
	return pods
}

// podNames returns the names of pods, in order.
func podNames(pods []corev1.Pod) []string {
	names := make([]string, 0, len(pods))
	for _, pod := range pods {
		names = append(names, pod.Name)
	}
	return names
}

// containerImages returns the image of each of pod's containers.
func containerImages(pod *corev1.Pod) []string {
	var images []string
	for _, c := range pod.Spec.Containers {
		images = append(images, c.Image)
	}
	return images
}

// describeRef prints an OwnerReference in one line.
func describeRef(ref *metav1.OwnerReference) string {
	if ref == nil {
		return "none"
	}
	return ref.Kind + "/" + ref.Name + " uid " + string(ref.UID) +
		" controller=" + boolString(ref.Controller) + " blockOwnerDeletion=" + boolString(ref.BlockOwnerDeletion)
}

func boolString(b *bool) string {
	if b == nil {
		return "unset"
	}
	if *b {
		return "true"
	}
	return "false"
}

// unmanaged hides ip from the running manager, for tests that call Reconcile themselves.
func unmanaged(ip *appsv2.ImoocPod) *appsv2.ImoocPod {
	ip.Labels = map[string]string{testenv.UnmanagedLabel: "true"}
	return ip
}

// scaleTo sets spec.replicas with a merge patch, as `kubectl patch` does. Unlike an
// Update it sends no resourceVersion, so it does not conflict with the status patches
// the controller makes in between.
func scaleTo(g Gomega, ip *appsv2.ImoocPod, replicas int32) {
	patch := client.MergeFrom(ip.DeepCopy())
	ip.Spec.Replicas = ptr.To(replicas)
	g.ExpectWithOffset(1, env.Client.Patch(env.Context(), ip, patch)).To(Succeed())
}

func requestFor(obj client.Object) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
}

func labelledPod(ns, name, imoocPod string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{NameLabel: imoocPod}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
	}
}

// cachedPods lists the pods of ip's namespace as the manager's cache shows them.
func cachedPods(g Gomega, cache client.Reader, ip *appsv2.ImoocPod) []corev1.Pod {
	var pods corev1.PodList
	g.Expect(cache.List(env.Context(), &pods, client.InNamespace(ip.Namespace))).To(Succeed())
	return pods.Items
}

// cachedImoocPod reads ip as the manager's cache shows it.
func cachedImoocPod(g Gomega, cache client.Reader, ip *appsv2.ImoocPod) *appsv2.ImoocPod {
	var cached appsv2.ImoocPod
	g.Expect(cache.Get(env.Context(), client.ObjectKeyFromObject(ip), &cached)).To(Succeed())
	return &cached
}

// waitUntilSettled waits until the cache's copy of ip has not changed for a second: the
// running controller has written all it had to.
func waitUntilSettled(g Gomega, cache client.Reader, ip *appsv2.ImoocPod) {
	last := ""
	g.Eventually(func(g Gomega) {
		now := cachedImoocPod(g, cache, ip).ResourceVersion
		same := now == last
		last = now
		g.Expect(same).To(BeTrue(), "ImoocPod %s should stop changing once the controller has nothing left to do", ip.Name)
	}).WithPolling(time.Second).Should(Succeed())
}

// readyCount counts the ready pods among pods.
func readyCount(pods []corev1.Pod) int {
	var n int
	for i := range pods {
		if podcontrol.IsPodReady(&pods[i]) {
			n++
		}
	}
	return n
}

// idlePasses returns a function that runs one pass for ip and fails the test if the pass
// wrote anything or asked to requeue. Its reconciler, its own and reading the manager's
// cache, counts the writes of that pass only: the running controller may still be
// finishing a pass that began before the cache showed the status it had just written.
func idlePasses(t *testing.T, g Gomega, ip *appsv2.ImoocPod) func(why string) {
	var writes testenv.WriteCounter
	r := &ImoocPodReconciler{Client: writes.Wrap(env.Manager.GetClient()), Scheme: env.Client.Scheme()}
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
