package controller

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/13-imoocpod-versions/api/apps/v1"
	appsv2 "github.com/kube-workshop/operator-workshop/lessons/13-imoocpod-versions/api/apps/v2"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// An ImoocPod stored in v1 before the upgrade, whose v2-template annotation holds no
// template (anyone who could write an ImoocPod could write it), is read through the
// conversion webhook like any other: it must not make the lists of ImoocPods fail, nor
// stop the controller, nor resist its deletion. The test stores it in etcd as lesson
// 02's API server did; no write through today's API server can.
func TestAnImoocPodStoredInV1WithAnUnusableTemplateAnnotationStaysReadable(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	env.StoreInEtcd(t, testenv.EtcdKey(appsv2.GroupVersion.Group, "imoocpods", ns, "written-in-v1"), &appsv1.ImoocPod{
		TypeMeta: metav1.TypeMeta{APIVersion: appsv1.GroupVersion.String(), Kind: "ImoocPod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "written-in-v1", UID: uuid.NewUUID(), CreationTimestamp: metav1.Now(),
			Annotations: map[string]string{appsv1.TemplateAnnotation: `{"spec":{"containers":[{"name":"app"`},
		},
		Spec: appsv1.ImoocPodSpec{Replicas: ptr.To[int32](1), Image: "registry.k8s.io/pause:3.10"},
	})

	var list appsv2.ImoocPodList
	g.Eventually(func() error {
		return env.Client().List(env.Context(), &list, client.InNamespace(ns))
	}).Should(Succeed(), "listing ImoocPods in v2: the conversion of the one stored in v1 should ignore its annotation")
	g.Expect(list.Items).To(ConsistOf(HaveField("Name", "written-in-v1")), "the ImoocPods of the namespace")

	other := create(g, newImoocPod(ns, "other", 1))
	waitForPods(g, other, 1)

	stored := &list.Items[0]
	pods := waitForPods(g, stored, 1)
	g.Expect(pods[0].Spec.Containers).To(ConsistOf(HaveField("Image", "registry.k8s.io/pause:3.10")),
		"the pod of the ImoocPod whose annotation was ignored: what spec.image says")
	g.Eventually(func(g Gomega) {
		ignored := testenv.ConditionOf(latest(g, stored).Status.Conditions, appsv2.ConditionTemplateAnnotationIgnored)
		g.Expect(ignored).To(testenv.HaveStatusAndReason(metav1.ConditionTrue, appsv2.ReasonInvalidTemplate),
			"the condition %s should say that the annotation was ignored", appsv2.ConditionTemplateAnnotationIgnored)
		g.Expect(ignored.Message).To(ContainSubstring(appsv1.TemplateAnnotation), "the condition should name the annotation")
	}).Should(Succeed())

	g.Expect(env.Client().Delete(env.Context(), stored)).To(Succeed(), "deleting the ImoocPod whose annotation was ignored")
	g.Eventually(func() error {
		return env.Client().Get(env.Context(), client.ObjectKeyFromObject(stored), &appsv2.ImoocPod{})
	}).Should(Satisfy(apierrors.IsNotFound), "the deleted ImoocPod should be gone")
}

// Lesson 02's pods name their ImoocPod apps.workshop.dev/v1 in their owner reference.
// The garbage collector finds an owner through that version: once v1 is no longer
// served, it would never delete them with their ImoocPod. A pass moves the reference to
// v2, and leaves the pod's other owners as they were. It runs with the manager's role.
func TestAPassMovesTheOwnerReferenceOfAPodOwnedThroughV1ToV2(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	asManager := env.AsManager(t, filepath.Join("..", "..", "config", "rbac", "role.yaml"), &appsv2.ImoocPodList{}, &corev1.PodList{})
	ip := create(g, unmanaged(newImoocPod(ns, "upgraded", 1)))
	other := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "someone-else", UID: uuid.NewUUID()}
	old := create(g, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: "upgraded-made-by-lesson-02",
			Labels: map[string]string{NameLabel: ip.Name, testenv.UnmanagedLabel: "true"},
			OwnerReferences: []metav1.OwnerReference{other, {
				APIVersion: appsv1.GroupVersion.String(), Kind: "ImoocPod", Name: ip.Name, UID: ip.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
	})

	r := &ImoocPodReconciler{Client: asManager, Scheme: env.Scheme()}
	_, err := r.Reconcile(env.Context(), requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "a pass as the manager's role")

	var got corev1.Pod
	g.Expect(env.Client().Get(env.Context(), client.ObjectKeyFromObject(old), &got)).To(Succeed())
	g.Expect(got.OwnerReferences).To(ConsistOf(
		Equal(other),
		And(HaveField("UID", ip.UID), HaveField("APIVersion", appsv2.GroupVersion.String()), HaveField("Controller", ptr.To(true))),
	), "the pod's owner references after a pass: the ImoocPod's in v2, the other as it was")
	g.Expect(podsOf(g, ip)).To(HaveLen(1), "the pod made before the upgrade is the ImoocPod's one pod: no other is made")
}
