package controller

import (
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/02-imoocpod-workflow/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The helpers of the envtest tests: the ImoocPods and pods they make, and what they read
// of them straight from the API server. A failure should read in a line or two and name
// what to fix, so the assertions compare names and counts, never whole pods: a pod prints
// as a hundred lines of managedFields.

// holdFinalizer is the test's own finalizer: it keeps a deleted pod in Terminating, as
// a kubelet does during the grace period, until the test removes it.
const holdFinalizer = "test.workshop.dev/hold"

// newImoocPod returns an ImoocPod asking for replicas pods in namespace ns.
func newImoocPod(ns, name string, replicas int32) *appsv1.ImoocPod {
	return &appsv1.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       appsv1.ImoocPodSpec{Replicas: ptr.To(replicas)},
	}
}

// create creates obj through the API server and returns it, as the API server stored it.
func create[T client.Object](g Gomega, obj T) T {
	g.ExpectWithOffset(1, env.Client().Create(env.Context(), obj)).To(Succeed())
	return obj
}

// unmanaged hides ip from the running controller, for tests that run its passes
// themselves.
func unmanaged(ip *appsv1.ImoocPod) *appsv1.ImoocPod {
	ip.Labels = map[string]string{testenv.UnmanagedLabel: "true"}
	return ip
}

// podsOf lists, straight from the API server, the pods the ImoocPod controls that are
// not being deleted: what `kubectl get pods` would show. A pod that looks like one of
// the ImoocPod's (its label, a name that starts with the ImoocPod's) but has no
// controller OwnerReference to it fails the caller, naming the missing reference:
// otherwise the count alone would say that the controller made too few pods.
func podsOf(g Gomega, ip *appsv1.ImoocPod) []corev1.Pod {
	var pods corev1.PodList
	g.ExpectWithOffset(1, env.Client().List(env.Context(), &pods, client.InNamespace(ip.Namespace))).To(Succeed())
	var owned []corev1.Pod
	for _, pod := range pods.Items {
		if !metav1.IsControlledBy(&pod, ip) {
			made := pod.Labels[NameLabel] == ip.Name && strings.HasPrefix(pod.Name, ip.Name)
			g.ExpectWithOffset(1, made).To(BeFalse(), "pod %s has the %s label but no controller OwnerReference "+
				"to ImoocPod %s: newPod should set one on every pod it makes", pod.Name, NameLabel, ip.Name)
			continue
		}
		if pod.DeletionTimestamp.IsZero() {
			owned = append(owned, pod)
		}
	}
	return owned
}

// latest reads ip straight from the API server.
func latest(g Gomega, ip *appsv1.ImoocPod) *appsv1.ImoocPod {
	var got appsv1.ImoocPod
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(ip), &got)).To(Succeed())
	return &got
}

// haveReady matches an ImoocPod whose Ready condition has status and reason; the
// condition's message is for people and is not compared.
func haveReady(status metav1.ConditionStatus, reason string) types.GomegaMatcher {
	return WithTransform(readyCondition, testenv.HaveStatusAndReason(status, reason))
}

// readyCondition returns ip's Ready condition, or an empty one when it has none.
func readyCondition(ip *appsv1.ImoocPod) metav1.Condition {
	return testenv.ConditionOf(ip.Status.Conditions, appsv1.ConditionReady)
}

// waitForPods waits until the running controller shows n pods for ip, and returns them.
func waitForPods(g Gomega, ip *appsv1.ImoocPod, n int) []corev1.Pod {
	var pods []corev1.Pod
	g.EventuallyWithOffset(1, func(g Gomega) {
		pods = podsOf(g, ip)
		g.Expect(len(pods)).To(Equal(n), "the controller should create spec.replicas pods for ImoocPod %s", ip.Name)
	}).Should(Succeed())
	return pods
}

// scaleTo sets spec.replicas with a merge patch, as `kubectl patch` does. Unlike an
// Update it sends no resourceVersion, so it does not conflict with the status patches
// the controller makes in between.
func scaleTo(g Gomega, ip *appsv1.ImoocPod, replicas int32) {
	patch := client.MergeFrom(ip.DeepCopy())
	ip.Spec.Replicas = ptr.To(replicas)
	g.ExpectWithOffset(1, env.Client().Patch(env.Context(), ip, patch)).To(Succeed())
}

// deleteHeld deletes pod after putting holdFinalizer on it, and checks that the pod stays
// in Terminating, as a kubelet's grace period would keep it, until the test ends and lets
// it go.
func deleteHeld(t *testing.T, g Gomega, pod *corev1.Pod) {
	ctx := env.Context()
	patch := client.MergeFrom(pod.DeepCopy())
	controllerutil.AddFinalizer(pod, holdFinalizer)
	g.ExpectWithOffset(1, env.Client().Patch(ctx, pod, patch)).To(Succeed())
	t.Cleanup(func() {
		var held corev1.Pod
		if err := env.Client().Get(ctx, client.ObjectKeyFromObject(pod), &held); err != nil {
			return
		}
		patch := client.MergeFrom(held.DeepCopy())
		controllerutil.RemoveFinalizer(&held, holdFinalizer)
		if err := env.Client().Patch(ctx, &held, patch); client.IgnoreNotFound(err) != nil {
			t.Errorf("removing the finalizer %s from pod %s: %v", holdFinalizer, held.Name, err)
		}
	})
	g.ExpectWithOffset(1, env.Client().Delete(ctx, pod)).To(Succeed())
	g.ExpectWithOffset(1, env.Client().Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
	g.ExpectWithOffset(1, pod.DeletionTimestamp).NotTo(BeNil(), "the finalizer should hold pod %s in Terminating", pod.Name)
}

// A badSpec is a spec the API server refuses with message.
type badSpec struct {
	name    string
	spec    map[string]any
	message string
}

// expectRefused creates an ImoocPod of version gv with each spec, as unstructured objects
// can carry any value, and expects the API server to refuse it.
func expectRefused(t *testing.T, gv schema.GroupVersion, tests []badSpec) {
	ns := env.Namespace(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": gv.String(),
				"kind":       "ImoocPod",
				"metadata":   map[string]any{"namespace": ns, "name": fmt.Sprintf("bad-%d", i)},
				"spec":       tt.spec,
			}}
			err := env.Client().Create(env.Context(), obj)
			g.Expect(err).To(MatchError(ContainSubstring(tt.message)), "the API server should refuse %v", tt.spec)
		})
	}
}

func labelledPod(ns, name, imoocPod string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{NameLabel: imoocPod}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
	}
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
