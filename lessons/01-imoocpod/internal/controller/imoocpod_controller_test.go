package controller

import (
	"context"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/01-imoocpod/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// newImoocPod returns an ImoocPod asking for replicas pods in namespace ns.
func newImoocPod(ns, name string, replicas int32) *appsv1.ImoocPod {
	return &appsv1.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       appsv1.ImoocPodSpec{Replicas: ptr.To(replicas)},
	}
}

// podsOf lists, straight from the API server, the pods the ImoocPod controls that are
// not being deleted: what `kubectl get pods` would show.
func podsOf(g Gomega, ip *appsv1.ImoocPod) []corev1.Pod {
	var pods corev1.PodList
	g.Expect(env.Client.List(env.Context(), &pods, client.InNamespace(ip.Namespace))).To(Succeed())
	var owned []corev1.Pod
	for _, pod := range pods.Items {
		if metav1.IsControlledBy(&pod, ip) && pod.DeletionTimestamp.IsZero() {
			owned = append(owned, pod)
		}
	}
	return owned
}

func TestCreatesPodsOwnedByTheImoocPod(t *testing.T) {
	g := NewWithT(t)
	ip := newImoocPod(env.Namespace(t), "web", 3)
	g.Expect(env.Client.Create(env.Context(), ip)).To(Succeed())

	g.Eventually(func(g Gomega) {
		g.Expect(podsOf(g, ip)).To(HaveLen(3), "the controller should create spec.replicas pods")
	}).Should(Succeed())

	for _, pod := range podsOf(g, ip) {
		g.Expect(pod.Labels).To(HaveKeyWithValue(NameLabel, "web"), "pod %s should carry the %s label", pod.Name, NameLabel)
		g.Expect(pod.Spec.Containers).To(ConsistOf(HaveField("Image", "registry.k8s.io/pause:3.10")),
			"pod %s should run the defaulted spec.image", pod.Name)
		ref := metav1.GetControllerOf(&pod)
		g.Expect(ref).NotTo(BeNil(), "pod %s should have a controller OwnerReference", pod.Name)
		g.Expect(ref.UID).To(Equal(ip.UID))
		g.Expect(ref.BlockOwnerDeletion).To(HaveValue(BeTrue()),
			"foreground deletion of the ImoocPod should wait for its pods")
	}
}

// A direct call of Reconcile shows what one pass does: the whole difference, not one pod.
func TestOnePassScalesTheWholeDifference(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	r := &ImoocPodReconciler{Client: env.Client, Scheme: env.Client.Scheme()}
	ip := unmanaged(newImoocPod(env.Namespace(t), "batch", 40))
	g.Expect(env.Client.Create(ctx, ip)).To(Succeed())

	g.Expect(r.Reconcile(ctx, requestFor(ip))).To(Equal(ctrl.Result{}))
	g.Expect(podsOf(g, ip)).To(HaveLen(40), "one pass should create every missing pod")

	scaleTo(g, ip, 7)
	g.Expect(r.Reconcile(ctx, requestFor(ip))).To(Equal(ctrl.Result{}))
	g.Expect(podsOf(g, ip)).To(HaveLen(7), "one pass should delete every surplus pod")
}

// The reconciler reads pods from a cache that may not show its own creates yet. Here the
// cache is frozen before the first pass: every later pass sees no pods at all.
func TestStaleCacheNeverCreatesTooMany(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	stale := &frozenPodList{Client: env.Client}
	r := &ImoocPodReconciler{Client: stale, Scheme: env.Client.Scheme()}
	ip := unmanaged(newImoocPod(env.Namespace(t), "stale", 5))
	g.Expect(env.Client.Create(ctx, ip)).To(Succeed())

	for pass := range 3 {
		_, err := r.Reconcile(ctx, requestFor(ip))
		g.Expect(err).NotTo(HaveOccurred(), "pass %d", pass)
	}
	g.Expect(podsOf(g, ip)).To(HaveLen(5),
		"passes that cannot see their own creates must not create again")
}

func TestReplacesAPodDeletedBySomeoneElse(t *testing.T) {
	g := NewWithT(t)
	ip := newImoocPod(env.Namespace(t), "replace", 2)
	g.Expect(env.Client.Create(env.Context(), ip)).To(Succeed())
	var victim corev1.Pod
	g.Eventually(func(g Gomega) {
		pods := podsOf(g, ip)
		g.Expect(pods).To(HaveLen(2))
		victim = pods[0]
	}).Should(Succeed())

	g.Expect(env.Client.Delete(env.Context(), &victim)).To(Succeed())

	g.Eventually(func(g Gomega) {
		pods := podsOf(g, ip)
		g.Expect(pods).To(HaveLen(2), "a deleted pod should be replaced")
		g.Expect(pods).NotTo(ContainElement(HaveField("Name", victim.Name)))
	}).Should(Succeed())
}

func TestReplacesFinishedPods(t *testing.T) {
	g := NewWithT(t)
	ip := newImoocPod(env.Namespace(t), "finished", 2)
	g.Expect(env.Client.Create(env.Context(), ip)).To(Succeed())
	var done corev1.Pod
	g.Eventually(func(g Gomega) {
		pods := podsOf(g, ip)
		g.Expect(pods).To(HaveLen(2))
		done = pods[0]
	}).Should(Succeed())

	done.Status.Phase = corev1.PodFailed
	g.Expect(env.Client.Status().Update(env.Context(), &done)).To(Succeed())

	g.Eventually(func(g Gomega) {
		var running int
		for _, pod := range podsOf(g, ip) {
			if pod.Status.Phase != corev1.PodFailed {
				running++
			}
		}
		g.Expect(running).To(Equal(2), "a Failed pod does not count; another should replace it")
	}).Should(Succeed())
}

func TestLeavesOtherPodsAlone(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	// An orphan with our label, and a pod controlled by someone else with our label.
	orphan := labelledPod(ns, "orphan", "shared")
	foreign := labelledPod(ns, "foreign", "shared")
	foreign.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "other", UID: "1234", Controller: ptr.To(true),
	}}
	g.Expect(env.Client.Create(ctx, orphan)).To(Succeed())
	g.Expect(env.Client.Create(ctx, foreign)).To(Succeed())

	ip := newImoocPod(ns, "shared", 1)
	g.Expect(env.Client.Create(ctx, ip)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(podsOf(g, ip)).To(HaveLen(1), "pods the ImoocPod does not control should not count")
	}).Should(Succeed())

	scaleTo(g, ip, 0)
	g.Eventually(func(g Gomega) { g.Expect(podsOf(g, ip)).To(BeEmpty()) }).Should(Succeed())
	for _, pod := range []*corev1.Pod{orphan, foreign} {
		g.Expect(env.Client.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed(),
			"pod %s is not the ImoocPod's and must survive its scale-down", pod.Name)
		g.Expect(metav1.IsControlledBy(pod, ip)).To(BeFalse(), "pod %s must not be adopted", pod.Name)
	}
}

func TestScaleDownKeepsTheReadyPods(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ip := newImoocPod(env.Namespace(t), "scaledown", 4)
	g.Expect(env.Client.Create(ctx, ip)).To(Succeed())
	var ready []string
	g.Eventually(func(g Gomega) {
		pods := podsOf(g, ip)
		g.Expect(pods).To(HaveLen(4))
		ready = []string{pods[0].Name, pods[1].Name}
	}).Should(Succeed())
	// envtest runs no kubelet: play its part for two pods.
	for _, name := range ready {
		markReady(g, ip.Namespace, name)
	}

	scaleTo(g, ip, 2)

	g.Eventually(func(g Gomega) {
		g.Expect(podsOf(g, ip)).To(ConsistOf(HaveField("Name", ready[0]), HaveField("Name", ready[1])),
			"scaling down should delete the pods that are not ready")
	}).Should(Succeed())
}

func TestIdlePassWritesNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ip := newImoocPod(env.Namespace(t), "idle", 3)
	g.Expect(env.Client.Create(ctx, ip)).To(Succeed())
	g.Eventually(func(g Gomega) { g.Expect(podsOf(g, ip)).To(HaveLen(3)) }).Should(Succeed())

	// A reconciler of its own, reading the manager's cache, counts the writes of one pass
	// only: the running controller may still be finishing a pass that began before the
	// cache showed the status it had just written.
	cache := env.Manager.GetClient()
	var writes testenv.WriteCounter
	r := &ImoocPodReconciler{Client: writes.Wrap(cache), Scheme: env.Client.Scheme()}
	idlePass := func(why string) {
		t.Helper()
		before := writes.Count()
		result, err := r.Reconcile(ctx, requestFor(ip))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(result).To(Equal(ctrl.Result{}), "a pass with nothing to do should not requeue")
		g.Expect(writes.Count()-before).To(BeZero(), "a pass with nothing to do should write nothing, "+
			"not even the status it found unchanged: "+why)
	}

	// Let the cache catch up with the creates and with the status they lead to, as it
	// does between two events.
	g.Eventually(func(g Gomega) {
		g.Expect(cachedPods(g, cache, ip)).To(HaveLen(3))
	}).Should(Succeed())
	idlePass("3 pods, none ready")
}

func TestTheAPIServerRejectsBadSpecs(t *testing.T) {
	ns := env.Namespace(t)
	tests := []struct {
		name    string
		spec    map[string]any
		message string
	}{
		{"negative replicas", map[string]any{"replicas": -1}, "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"},
		{"too many replicas", map[string]any{"replicas": 1001}, "spec.replicas: Invalid value: 1001: spec.replicas in body should be less than or equal to 1000"},
		{"replicas as a string", map[string]any{"replicas": "three"}, `spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer`},
		{"empty image", map[string]any{"image": ""}, "spec.image: Invalid value: \"\": spec.image in body should be at least 1 chars long"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": appsv1.GroupVersion.String(),
				"kind":       "ImoocPod",
				"metadata":   map[string]any{"namespace": ns, "name": fmt.Sprintf("bad-%d", i)},
				"spec":       tt.spec,
			}}
			err := env.Client.Create(env.Context(), obj)
			g.Expect(err).To(MatchError(ContainSubstring(tt.message)))
		})
	}
}

func TestTheAPIServerDefaultsTheSpec(t *testing.T) {
	g := NewWithT(t)
	ip := &appsv1.ImoocPod{ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace(t), Name: "defaults"}}
	g.Expect(env.Client.Create(env.Context(), ip)).To(Succeed())
	g.Expect(ip.Spec.Replicas).To(HaveValue(BeEquivalentTo(1)), "a missing spec.replicas should default to 1")
	g.Expect(ip.Spec.Image).To(Equal("registry.k8s.io/pause:3.10"), "a missing spec.image should get the default")
}

// unmanaged hides ip from the running manager, for tests that call Reconcile themselves.
func unmanaged(ip *appsv1.ImoocPod) *appsv1.ImoocPod {
	ip.Labels = map[string]string{testenv.UnmanagedLabel: "true"}
	return ip
}

// scaleTo sets spec.replicas with a merge patch, as `kubectl patch` does. Unlike an
// Update it sends no resourceVersion, so it does not conflict with the status patches
// the controller makes in between.
func scaleTo(g Gomega, ip *appsv1.ImoocPod, replicas int32) {
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
func cachedPods(g Gomega, cache client.Reader, ip *appsv1.ImoocPod) []corev1.Pod {
	var pods corev1.PodList
	g.Expect(cache.List(env.Context(), &pods, client.InNamespace(ip.Namespace))).To(Succeed())
	return pods.Items
}

func markReady(g Gomega, ns, name string) {
	var pod corev1.Pod
	g.Expect(env.Client.Get(env.Context(), client.ObjectKey{Namespace: ns, Name: name}, &pod)).To(Succeed())
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	g.Expect(env.Client.Status().Update(env.Context(), &pod)).To(Succeed())
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

func TestANamespaceBeingDeletedIsNoError(t *testing.T) {
	g := NewWithT(t)
	ip := unmanaged(newImoocPod("", "web", 3))
	terminatingNamespace(g, ip)
	r := &ImoocPodReconciler{Client: env.Client, Scheme: env.Client.Scheme()}

	result, err := r.Reconcile(env.Context(), requestFor(ip))
	g.Expect(err).NotTo(HaveOccurred(), "a namespace being deleted refuses new pods, and takes the ImoocPod with it: "+
		"there is nothing to retry")
	g.Expect(result).To(Equal(ctrl.Result{}))
	g.Expect(podsOf(g, ip)).To(BeEmpty())
}
