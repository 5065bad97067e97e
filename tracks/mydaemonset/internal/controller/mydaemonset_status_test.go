package controller

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/tracks/mydaemonset/api/apps/v1"
)

// The Ready condition is the first row of setMyDaemonSetReadyCondition's table that
// applies. Its message says counts or the error, never a time: a pass that finds what the
// last one found sets the same condition, and patchStatus then writes nothing.
func TestTheReadyConditionSaysWhatThePassFound(t *testing.T) {
	counts := func(desired, current, updated, available int32) appsv1.MyDaemonSetStatus {
		return appsv1.MyDaemonSetStatus{DesiredNumberScheduled: desired, CurrentNumberScheduled: current,
			UpdatedNumberScheduled: updated, NumberAvailable: available}
	}
	tests := []struct {
		name    string
		status  appsv1.MyDaemonSetStatus
		passErr error
		want    metav1.ConditionStatus
		reason  string
	}{
		{"the pass failed", counts(3, 3, 1, 2), errors.New("listing nodes: the cache is gone"),
			metav1.ConditionFalse, appsv1.ReasonReconcileError},
		{"a pod runs an old image", counts(3, 3, 1, 2), nil, metav1.ConditionFalse, appsv1.ReasonRollingOut},
		{"a node that should run a pod has none", counts(3, 2, 2, 1), nil, metav1.ConditionFalse, appsv1.ReasonPodsMissing},
		{"a pod is not ready", counts(3, 3, 3, 2), nil, metav1.ConditionFalse, appsv1.ReasonPodsNotReady},
		{"every node runs a ready pod of spec.image", counts(3, 3, 3, 3), nil, metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable},
		{"no node matches", counts(0, 0, 0, 0), nil, metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			mds := &appsv1.MyDaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Generation: 4}, Status: tt.status}
			setMyDaemonSetReadyCondition(mds, tt.passErr)
			ready := meta.FindStatusCondition(mds.Status.Conditions, appsv1.ConditionReady)
			g.Expect(ready).NotTo(BeNil(), "setMyDaemonSetReadyCondition should set the condition %q", appsv1.ConditionReady)
			g.Expect(ready.Status).To(Equal(tt.want), "the Ready condition's status when %s", tt.name)
			g.Expect(ready.Reason).To(Equal(tt.reason), "the Ready condition's reason when %s", tt.name)
			g.Expect(ready.ObservedGeneration).To(BeEquivalentTo(4), "the condition's observedGeneration")
			if tt.passErr != nil {
				g.Expect(ready.Message).To(ContainSubstring(tt.passErr.Error()), "the message says the error")
			} else {
				g.Expect(ready.Message).NotTo(BeEmpty(), "the message says the counts")
			}

			before := mds.Status.DeepCopy()
			setMyDaemonSetReadyCondition(mds, tt.passErr)
			g.Expect(mds.Status.Conditions).To(Equal(before.Conditions),
				"a pass that finds the same counts should leave the condition as it was")
		})
	}
}

// kubectl get shows the counts through the printer columns' JSONPaths, which print
// <none> for a field the object lacks: a count of 0 must be in the object, not left out.
func TestMyDaemonSetStatusHoldsCountsOfZero(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	mds := newMyDaemonSet(ns, "nowhere", map[string]string{"role": "none"})
	g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())

	g.Eventually(func(g Gomega) {
		got := &unstructured.Unstructured{}
		got.SetGroupVersionKind(appsv1.GroupVersion.WithKind("MyDaemonSet"))
		g.Expect(env.Client.Get(env.Context(), client.ObjectKeyFromObject(mds), got)).To(Succeed())
		g.Expect(got.Object).To(HaveKeyWithValue("status", HaveKey("conditions")), "the status after a pass")
		for _, field := range []string{"desiredNumberScheduled", "currentNumberScheduled", "updatedNumberScheduled", "numberAvailable"} {
			count, found, err := unstructured.NestedInt64(got.Object, "status", field)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(found).To(BeTrue(), "status.%s of a MyDaemonSet that matches no node should be 0, not "+
				"missing (kubectl get would show <none>)", field)
			g.Expect(count).To(BeZero(), "status.%s", field)
		}
	}).Should(Succeed())
}
