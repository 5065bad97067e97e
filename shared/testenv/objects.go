package testenv

import (
	"context"
	"strings"

	"github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MarkReady plays the kubelet: the pod ns/name runs and is ready.
func (e *Env) MarkReady(g gomega.Gomega, ns, name string) {
	var pod corev1.Pod
	g.ExpectWithOffset(1, e.Client().Get(e.Context(), client.ObjectKey{Namespace: ns, Name: name}, &pod)).To(gomega.Succeed())
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	g.ExpectWithOffset(1, e.Client().Status().Update(e.Context(), &pod)).To(gomega.Succeed())
}

// TerminatingNamespace creates a namespace with obj in it, then deletes the namespace.
// envtest runs no namespace controller, so the namespace stays Terminating, refusing
// every new object, for the rest of the run.
func (e *Env) TerminatingNamespace(g gomega.Gomega, obj client.Object) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "terminating-"}}
	g.ExpectWithOffset(1, e.Client().Create(e.Context(), ns)).To(gomega.Succeed())
	obj.SetNamespace(ns.Name)
	g.ExpectWithOffset(1, e.Client().Create(e.Context(), obj)).To(gomega.Succeed())
	g.ExpectWithOffset(1, e.Client().Delete(e.Context(), ns)).To(gomega.Succeed())
}

// CreateAsKubectl creates obj, an object as a manifest writes it (apiVersion, kind,
// metadata, spec), with the fields of with changed first: each key a dotted path
// ("spec.replicas"), each nil value deleting its field. It asks for strict field
// validation, as kubectl does, so that a misspelt field is an error rather than dropped,
// and returns the API server's answer. obj is changed in place.
func (e *Env) CreateAsKubectl(obj, with map[string]any) error {
	for path, value := range with {
		setPath(obj, path, value)
	}
	return e.Client().Create(e.Context(), &unstructured.Unstructured{Object: obj},
		client.FieldValidation(metav1.FieldValidationStrict))
}

// setPath sets the value at a dotted path of obj, making the maps on the way; a nil
// value deletes the field.
func setPath(obj map[string]any, path string, value any) {
	keys := strings.Split(path, ".")
	for _, key := range keys[:len(keys)-1] {
		next, ok := obj[key].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[key] = next
		}
		obj = next
	}
	if value == nil {
		delete(obj, keys[len(keys)-1])
		return
	}
	obj[keys[len(keys)-1]] = value
}

// ExpectStatusCountsOfZero waits until a pass has written obj's status (its conditions),
// then expects each of fields in it with the value 0, as the API server stores obj.
// kubectl get shows the counts through the printer columns' JSONPaths, which print
// <none> for a field the object lacks: a count of 0 must be in the object, not left out.
func (e *Env) ExpectStatusCountsOfZero(g gomega.Gomega, obj client.Object, fields ...string) {
	gvk, err := e.Client().GroupVersionKindFor(obj)
	g.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	g.EventuallyWithOffset(1, func(g gomega.Gomega) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(gvk)
		g.Expect(e.Client().Get(e.Context(), client.ObjectKeyFromObject(obj), got)).To(gomega.Succeed())
		g.Expect(got.Object).To(gomega.HaveKeyWithValue("status", gomega.HaveKey("conditions")), "the status after a pass")
		for _, field := range fields {
			count, found, err := unstructured.NestedInt64(got.Object, "status", field)
			g.Expect(err).NotTo(gomega.HaveOccurred())
			g.Expect(found).To(gomega.BeTrue(), "status.%s of %s %s should be 0, not missing (kubectl get would show <none>)",
				field, gvk.Kind, obj.GetName())
			g.Expect(count).To(gomega.BeZero(), "status.%s", field)
		}
	}).Should(gomega.Succeed())
}

// CreateNamespace creates the namespace name, unless it exists, with mgr's
// configuration: for a Setup whose webhooks or controllers need a namespace that is
// there before the manager starts, as a deployed manager's own namespace is.
func CreateNamespace(mgr ctrl.Manager, name string) error {
	c, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	return client.IgnoreAlreadyExists(c.Create(context.Background(), ns))
}

// WaitForCache waits until the manager's cache holds obj at the generation obj has: the
// spec the API server stored when obj was created or last changed. A status the
// controller writes in between leaves the generation as it is.
func (e *Env) WaitForCache(g gomega.Gomega, obj client.Object) {
	// The environment starts before the wait (see WaitForWebhooks).
	ctx, cache := e.Context(), e.Manager().GetCache()
	g.EventuallyWithOffset(1, func(g gomega.Gomega) {
		cached := obj.DeepCopyObject().(client.Object)
		g.Expect(cache.Get(ctx, client.ObjectKeyFromObject(obj), cached)).To(gomega.Succeed())
		g.Expect(cached.GetGeneration()).To(gomega.Equal(obj.GetGeneration()))
	}).Should(gomega.Succeed(), "the manager's cache should hold %s at generation %d", obj.GetName(), obj.GetGeneration())
}

// FrozenPodList is a client whose pod lists never change after the first one: a cache
// that has stopped seeing events. Give it to a reconciler of the test's own to show
// what passes do when they cannot see their own writes.
type FrozenPodList struct {
	client.Client
	frozen *corev1.PodList
}

// List lists pods as the first list did; other kinds, as the client does.
func (f *FrozenPodList) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
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
