package controller

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv2 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v2"
)

// The markers on ImoocPod give its CRD a status subresource (the spec and the status are
// then written apart), a scale subresource and the columns of kubectl get.
func TestTheCRDHasSubresourcesAndColumns(t *testing.T) {
	g := NewWithT(t)
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	g.Expect(env.Client().Get(env.Context(), client.ObjectKey{Name: "imoocpods." + appsv2.GroupVersion.Group}, crd)).To(Succeed())
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	g.Expect(versions).NotTo(BeEmpty(), "the CRD's versions")
	// The newest version, the one the controller reads.
	version := versions[len(versions)-1].(map[string]any)

	_, found, _ := unstructured.NestedMap(version, "subresources", "status")
	g.Expect(found).To(BeTrue(), "the CRD should have a status subresource: a +kubebuilder:subresource:status marker on ImoocPod")
	scale, _, _ := unstructured.NestedStringMap(version, "subresources", "scale")
	g.Expect(scale).To(Equal(map[string]string{
		"specReplicasPath":   ".spec.replicas",
		"statusReplicasPath": ".status.replicas",
		"labelSelectorPath":  ".status.selector",
	}), "the CRD's scale subresource: a +kubebuilder:subresource:scale marker with specpath, statuspath and selectorpath")

	columns, _, _ := unstructured.NestedSlice(version, "additionalPrinterColumns")
	var got []string
	for _, c := range columns {
		column := c.(map[string]any)
		got = append(got, fmt.Sprintf("%s=%s", column["name"], column["jsonPath"]))
	}
	g.Expect(got).To(Equal([]string{"Desired=.spec.replicas", "Current=.status.replicas", "Ready=.status.readyReplicas",
		"Age=.metadata.creationTimestamp"}), "kubectl get's columns, as for a ReplicaSet: +kubebuilder:printcolumn markers")
}

// setReadyCondition alone: what the Ready condition says of each state a pass can find,
// and that the same state again leaves the condition as it was.
func TestSetReadyConditionFollowsTheCounts(t *testing.T) {
	quota := errors.New("exceeded quota: pods")
	tests := []struct {
		name            string
		replicas, ready int32
		passErr         error
		status          metav1.ConditionStatus
		reason          string
	}{
		{"fewer pods than asked for", 1, 0, nil, metav1.ConditionFalse, appsv2.ReasonScalingUp},
		{"more pods than asked for", 5, 5, nil, metav1.ConditionFalse, appsv2.ReasonScalingDown},
		{"some pods not ready", 3, 2, nil, metav1.ConditionFalse, appsv2.ReasonPodsNotReady},
		{"every pod ready", 3, 3, nil, metav1.ConditionTrue, appsv2.ReasonAllReplicasReady},
		{"the pass failed", 3, 3, quota, metav1.ConditionFalse, appsv2.ReasonReconcileError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ip := newImoocPod("default", "ready", 3)
			ip.Generation = 4
			ip.Status.Replicas, ip.Status.ReadyReplicas = tt.replicas, tt.ready
			setReadyCondition(ip, tt.passErr)
			g.Expect(ip).To(haveReady(tt.status, tt.reason), "the Ready condition with %d pods, %d ready, of 3 (error: %v)",
				tt.replicas, tt.ready, tt.passErr)
			ready := readyCondition(ip)
			g.Expect(ready.ObservedGeneration).To(BeEquivalentTo(4), "the condition's observedGeneration: the ImoocPod's generation")
			if tt.passErr != nil {
				g.Expect(ready.Message).To(ContainSubstring(quota.Error()), "the condition's message should say what failed")
			}
			setReadyCondition(ip, tt.passErr)
			g.Expect(readyCondition(ip)).To(Equal(ready), "the same state again should leave the condition as it was")
		})
	}
}

func TestAFailedPassReportsTheErrorAndDoesNotObserveTheSpec(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "failing", 2)))
	quota := errors.New("exceeded quota: pods")
	broken := &ImoocPodReconciler{Client: &failingCreates{Client: env.Client(), err: quota}, Scheme: env.Scheme()}
	working := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}

	_, err := broken.Reconcile(ctx, requestFor(ip))
	g.Expect(err).To(MatchError(quota), "a pass whose creates fail should return their error, to be retried")
	got := latest(g, ip)
	g.Expect(got).To(haveReady(metav1.ConditionFalse, appsv2.ReasonReconcileError), "the Ready condition after a failed "+
		"pass: if it says nothing of the error, the deferred patchStatus got the error before the pass ended "+
		"(`defer r.patchStatus(..., retErr)` reads retErr at the defer line; defer a closure instead)")
	g.Expect(readyCondition(got).Message).To(ContainSubstring(quota.Error()), "the Ready condition should say what failed")
	g.Expect(got.Status.ObservedGeneration).To(BeZero(), "status.observedGeneration after a failed pass: "+
		"only a pass that succeeded has acted on the spec")

	_, err = working.Reconcile(ctx, requestFor(ip))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(latest(g, ip).Status.ObservedGeneration).To(BeEquivalentTo(1),
		"status.observedGeneration once a pass has succeeded")

	scaleTo(g, ip, 5)
	_, err = broken.Reconcile(ctx, requestFor(ip))
	g.Expect(err).To(MatchError(quota))
	got = latest(g, ip)
	g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(1),
		"status.observedGeneration should stay at the last generation a pass succeeded with")
	g.Expect(got).To(haveReady(metav1.ConditionFalse, appsv2.ReasonReconcileError), "the Ready condition")
	g.Expect(readyCondition(got).Message).To(ContainSubstring(quota.Error()), "the Ready condition should say what failed")
}

// A pass that fails on many pods must still say so: the API server refuses a condition
// whose message exceeds 32 KiB, and a refused status patch leaves the status as the
// pass before wrote it, just when it is wrong.
func TestAPassThatFailsOnManyPodsStillReportsIt(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "many-failures", 40)))
	working := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}
	_, err := working.Reconcile(ctx, requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass that creates the 40 pods")
	g.Expect(podsOf(g, ip)).To(HaveLen(40))

	// A policy webhook refuses every delete, each with a long explanation: 40 of them,
	// joined, would make some 45 KiB.
	scaleTo(g, ip, 0)
	broken := &ImoocPodReconciler{Client: &testenv.FailingDeletes{Client: env.Client()}, Scheme: env.Scheme()}
	_, err = broken.Reconcile(ctx, requestFor(ip))
	testenv.ExpectRefusedDeletesReported(g, err, readyCondition(latest(g, ip)), 40)
}

// A pass that fails says so in the Ready condition, and the retry that succeeds must take
// it back. The cache shows the failed pass's status patch a moment after it is made, and
// that patch starts no pass of its own (GenerationChangedPredicate): the retry may read
// the ImoocPod as it was before the patch. Compared with that stale copy, what the retry
// finds is no change, and unless it looks further the error stays in the status until
// some other event comes, which may be never.
func TestARetryThatReadsAStaleCopyStillClearsTheError(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	// No pod: the status does not depend on the counts.
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "stale-copy", 0)))
	cache := &lateCache{Client: env.Client()}
	r := &ImoocPodReconciler{Client: cache, APIReader: env.Client(), Scheme: env.Scheme()}

	_, err := r.Reconcile(ctx, requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the first pass's error")
	g.Expect(latest(g, ip)).To(haveReady(metav1.ConditionTrue, appsv2.ReasonAllReplicasReady),
		"the Ready condition of an ImoocPod of 0 pods")

	// The cache falls behind, and the next pass fails.
	cache.behind = latest(g, ip)
	timeout := errors.New("etcdserver: request timed out")
	cache.listErr = timeout
	_, err = r.Reconcile(ctx, requestFor(ip))
	g.Expect(err).To(MatchError(timeout), "the failed pass's error")
	g.Expect(latest(g, ip)).To(haveReady(metav1.ConditionFalse, appsv2.ReasonReconcileError),
		"the Ready condition after the failed pass")

	// The retry succeeds, reading the ImoocPod from before the failed pass's patch.
	cache.listErr = nil
	_, err = r.Reconcile(ctx, requestFor(ip))
	if err != nil {
		// The queue would retry this pass too; by then the cache has caught up.
		cache.behind = nil
		_, err = r.Reconcile(ctx, requestFor(ip))
	}
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the retry's error")
	g.Expect(latest(g, ip)).To(haveReady(metav1.ConditionTrue, appsv2.ReasonAllReplicasReady), "the Ready condition "+
		"after the retry succeeded: if it still says ReconcileError, the retry compared equal with a stale copy of the "+
		"ImoocPod, which the cache showed as it was before the failed pass's status patch, and wrote nothing; that patch "+
		"starts no pass, so nothing would correct it. When r.statusWrites says the ImoocPod predates your last status "+
		"write, read it again through r.APIReader")
}

// The cache may be behind on two counts: its copy of the ImoocPod predates the last status
// patch, and the ImoocPod has been deleted since. Read again from the API server, it is
// not found: it is gone, as when the cache says so, and the pass has nothing left to do.
func TestAStaleCopyOfADeletedImoocPodIsNoError(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "stale-deleted", 0)))
	cache := &lateCache{Client: env.Client()}
	r := &ImoocPodReconciler{Client: cache, APIReader: env.Client(), Scheme: env.Scheme()}

	_, err := r.Reconcile(ctx, requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the first pass's error")
	g.Expect(latest(g, ip)).To(haveReady(metav1.ConditionTrue, appsv2.ReasonAllReplicasReady),
		"the Ready condition of an ImoocPod of 0 pods")

	// The cache still shows the ImoocPod as it was created, before that status patch, and
	// someone deletes it.
	cache.behind = ip
	g.Expect(env.Client().Delete(ctx, ip)).To(Succeed())
	_, err = r.Reconcile(ctx, requestFor(ip))
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass that reads a stale copy of an ImoocPod deleted since: "+
		"read again through r.APIReader, it is not found, which means it is gone (as NotFound from the cache does), "+
		"not that the pass failed")
}

// kubectl get shows the counts through the printer columns' JSONPaths, which print
// <none> for a field the object lacks: a count of 0 must be in the object, not left out.
func TestTheStatusHoldsCountsOfZero(t *testing.T) {
	g := NewWithT(t)
	// An ImoocPod without pods.
	ip := create(g, newImoocPod(env.Namespace(t), "zero", 0))
	env.ExpectStatusCountsOfZero(g, ip, "replicas", "readyReplicas")
}

// A pass may read an ImoocPod from the cache just before someone deletes it: its status
// patch then finds nothing, which is no error. There is nothing left to write or retry,
// and the manager's log would show a Reconciler error for a normal delete.
func TestAStatusPatchOfADeletedImoocPodIsNoError(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "deleted", 1)))
	orig := ip.DeepCopy()
	g.Expect(env.Client().Delete(env.Context(), ip)).To(Succeed())
	r := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}

	err := r.patchStatus(env.Context(), orig, ip, nil)
	g.Expect(testenv.ErrorText(err)).To(BeEmpty(),
		"the status patch of an ImoocPod deleted since the pass read it: NotFound means it is gone, not that the pass failed")
}

// The scale subresource is what `kubectl scale` and autoscalers use.
func TestTheScaleSubresource(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ip := create(g, newImoocPod(env.Namespace(t), "scale", 2))

	var scale autoscalingv1.Scale
	g.Expect(testenv.ErrorText(env.Client().SubResource("scale").Get(ctx, ip, &scale))).To(BeEmpty(),
		"the CRD should have a scale subresource: a +kubebuilder:subresource:scale marker on ImoocPod")
	g.Expect(scale.Spec.Replicas).To(BeEquivalentTo(2), "scale.spec.replicas should be spec.replicas (specpath)")
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client().SubResource("scale").Get(ctx, ip, &scale)).To(Succeed())
		g.Expect(scale.Status.Replicas).To(BeEquivalentTo(2),
			"scale.status.replicas should be status.replicas (statuspath), once passes count the pods into it")
		// A HorizontalPodAutoscaler finds the pods to measure through this selector.
		g.Expect(scale.Status.Selector).To(Equal(NameLabel+"=scale"), "scale.status.selector should be "+
			"status.selector (selectorpath), which passes fill with the pods' label selector")
	}).Should(Succeed())

	scale.Spec.Replicas = 5
	g.Expect(env.Client().SubResource("scale").Update(ctx, ip, client.WithSubResourceBody(&scale))).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Spec.Replicas).To(HaveValue(BeEquivalentTo(5)), "scaling should set spec.replicas")
		g.Expect(got.Status.Replicas).To(BeEquivalentTo(5), "status.replicas")
		g.Expect(len(podsOf(g, ip))).To(Equal(5), "the controller should follow the scale to 5 pods")
	}).Should(Succeed())
}

func TestStatusCountsActiveAndReadyPods(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "status", 3))

	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Status.Replicas).To(BeEquivalentTo(3), "status.replicas should count the active pods")
		g.Expect(got.Status.ReadyReplicas).To(BeZero(), "no pod is ready yet")
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), "status.observedGeneration")
		g.Expect(got).To(haveReady(metav1.ConditionFalse, appsv2.ReasonPodsNotReady), "the Ready condition")
	}).Should(Succeed())

	// envtest runs no kubelet: play its part, one pod at a time.
	for i, pod := range podsOf(g, ip) {
		env.MarkReady(g, ip.Namespace, pod.Name)
		g.Eventually(func(g Gomega) {
			g.Expect(latest(g, ip).Status.ReadyReplicas).To(BeEquivalentTo(i+1),
				"status.readyReplicas should count pod %s once it is ready, and only the ready pods: "+
					"each pass should start counting from zero, and the pod's update must start a pass", pod.Name)
		}).Should(Succeed())
	}

	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Status.Replicas).To(BeEquivalentTo(3), "status.replicas")
		g.Expect(got).To(haveReady(metav1.ConditionTrue, appsv2.ReasonAllReplicasReady), "the Ready condition")
	}).Should(Succeed())
}

func TestObservedGenerationFollowsTheSpec(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "generation", 1))
	g.Eventually(func(g Gomega) {
		g.Expect(latest(g, ip).Status.ObservedGeneration).To(BeEquivalentTo(1),
			"status.observedGeneration should reach metadata.generation once a pass has succeeded")
	}).Should(Succeed())

	scaleTo(g, ip, 4)
	g.Expect(ip.Generation).To(BeEquivalentTo(2), "the API server bumps metadata.generation for a spec change")

	g.Eventually(func(g Gomega) {
		got := latest(g, ip)
		g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(2),
			"status.observedGeneration should follow metadata.generation once a pass has acted on the new spec")
		g.Expect(got.Status.Replicas).To(BeEquivalentTo(4), "status.replicas")
		g.Expect(readyCondition(got).ObservedGeneration).To(BeEquivalentTo(2), "the Ready condition's observedGeneration")
	}).Should(Succeed())
	g.Expect(latest(g, ip).Spec.Replicas).To(HaveValue(BeEquivalentTo(4)), "the controller never writes the spec")
}

// Passes driven by hand, with a client that reads the API server directly, show what each
// pass reports: the pods it found, before its own creates and deletes.
func TestReadyConditionSaysWhatAPassFound(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	r := &ImoocPodReconciler{Client: env.Client(), Scheme: env.Scheme()}
	ip := create(g, unmanaged(newImoocPod(env.Namespace(t), "passes", 3)))
	pass := func() *appsv2.ImoocPod {
		t.Helper()
		_, err := r.Reconcile(ctx, requestFor(ip))
		g.Expect(testenv.ErrorText(err)).To(BeEmpty(), "the pass's error")
		return latest(g, ip)
	}

	got := pass()
	g.Expect(got.Status.Replicas).To(BeZero(), "the first pass found no pods; it created them")
	g.Expect(got).To(haveReady(metav1.ConditionFalse, appsv2.ReasonScalingUp), "the Ready condition")
	g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(1), "status.observedGeneration after a successful pass")

	got = pass()
	g.Expect(got.Status.Replicas).To(BeEquivalentTo(3), "the second pass found the pods the first created")
	g.Expect(got).To(haveReady(metav1.ConditionFalse, appsv2.ReasonPodsNotReady), "the Ready condition")

	scaleTo(g, ip, 1)
	got = pass()
	g.Expect(got).To(haveReady(metav1.ConditionFalse, appsv2.ReasonScalingDown), "the Ready condition")
	g.Expect(got.Status.ObservedGeneration).To(BeEquivalentTo(2), "status.observedGeneration after the spec changed")

	got = pass()
	g.Expect(got.Status.Replicas).To(BeEquivalentTo(1), "status.replicas after the scale-down")
	env.MarkReady(g, ip.Namespace, podsOf(g, ip)[0].Name)
	got = pass()
	g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(1), "status.readyReplicas")
	g.Expect(got).To(haveReady(metav1.ConditionTrue, appsv2.ReasonAllReplicasReady), "the Ready condition")
}

// Once the status says what the pods are, a pass that finds them unchanged writes nothing:
// no pod, and not the status either.
func TestAnIdlePassLeavesTheStatusAlone(t *testing.T) {
	g := NewWithT(t)
	ip := create(g, newImoocPod(env.Namespace(t), "idle-status", 3))
	waitForPods(g, ip, 3)

	idlePass := idlePasses(t, g, ip)
	// Let the cache catch up with the creates and with the status they lead to, as it
	// does between two events.
	g.Eventually(func(g Gomega) {
		g.Expect(len(cachedPods(g, ip))).To(Equal(3), "pods in the cache")
		cached := cachedImoocPod(g, ip)
		g.Expect(cached.Status.Replicas).To(BeEquivalentTo(3), "status.replicas should count the 3 pods")
		g.Expect(cached.Status.ObservedGeneration).To(Equal(cached.Generation),
			"status.observedGeneration should reach metadata.generation")
	}).Should(Succeed())
	idlePass("3 pods, none ready")

	for _, pod := range podsOf(g, ip) {
		env.MarkReady(g, ip.Namespace, pod.Name)
	}
	g.Eventually(func(g Gomega) {
		g.Expect(readyCount(cachedPods(g, ip))).To(Equal(3), "ready pods in the cache")
		g.Expect(cachedImoocPod(g, ip).Status.ReadyReplicas).To(BeEquivalentTo(3),
			"status.readyReplicas should count the 3 ready pods: each pass should start counting from zero, "+
				"not add to the last pass's count")
	}).Should(Succeed())
	idlePass("3 pods, all ready")
}

// The manager runs with the ClusterRole that controller-gen writes from the RBAC markers
// (config/rbac/role.yaml), bound cluster-wide, not as the administrator the other tests
// use. Every request of the manager must be allowed by that role: the cache's lists and
// watches, and every read and write of a pass that creates pods (which point at their
// ImoocPod with blockOwnerDeletion, so the API server asks for imoocpods/finalizers),
// patches the status and deletes pods.
func TestTheManagersRoleAllowsAWholePass(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	asManager := env.AsManager(t, filepath.Join("..", "..", "config", "rbac", "role.yaml"), &appsv2.ImoocPodList{}, &corev1.PodList{})

	r := &ImoocPodReconciler{Client: asManager, Scheme: env.Scheme()}
	ip := create(g, unmanaged(newImoocPod(ns, "rbac", 2)))
	passes := func(what string) {
		for pass := range 2 {
			_, err := r.Reconcile(ctx, requestFor(ip))
			g.ExpectWithOffset(1, testenv.ErrorText(err)).To(BeEmpty(),
				"pass %d %s as the manager's role; add the RBAC marker it lacks", pass+1, what)
		}
	}
	passes("creating 2 pods")
	g.Expect(podsOf(g, ip)).To(HaveLen(2), "pods after scaling up")
	g.Expect(latest(g, ip).Status.Replicas).To(BeEquivalentTo(2), "status.replicas")

	scaleTo(g, ip, 1)
	passes("deleting 1 pod")
	g.Expect(podsOf(g, ip)).To(HaveLen(1), "pods after scaling down")
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

// failingCreates is a client whose creates all fail with err, like a namespace whose
// quota is used up.
type failingCreates struct {
	client.Client
	err error
}

func (f *failingCreates) Create(context.Context, client.Object, ...client.CreateOption) error {
	return f.err
}

// lateCache is a client that reads like a cache a moment after a write: while behind is
// set, a Get of that ImoocPod returns it as it was then, whatever the API server holds.
// While listErr is set, its pod lists fail, like those of an API server that times out.
type lateCache struct {
	client.Client
	behind  *appsv2.ImoocPod
	listErr error
}

func (c *lateCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if ip, ok := obj.(*appsv2.ImoocPod); ok && c.behind != nil && key == client.ObjectKeyFromObject(c.behind) {
		c.behind.DeepCopyInto(ip)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *lateCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*corev1.PodList); ok && c.listErr != nil {
		return c.listErr
	}
	return c.Client.List(ctx, list, opts...)
}
