package controller

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	appsv2 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v2"
)

// setReadyCondition sets the Ready condition from the counts in the status, the spec and
// the pass's error. Its message holds only counts and errors, never times, so that a
// pass that finds the same counts leaves the condition as it was.
func setReadyCondition(imoocPod *appsv2.ImoocPod, passErr error) {
	want := ptr.Deref(imoocPod.Spec.Replicas, 1)
	status := &imoocPod.Status
	ready := metav1.Condition{
		Type:               appsv2.ConditionReady,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: imoocPod.Generation,
	}
	switch {
	case passErr != nil:
		ready.Reason, ready.Message = appsv2.ReasonReconcileError, passErr.Error()
	case status.Replicas < want:
		ready.Reason = appsv2.ReasonScalingUp
		ready.Message = fmt.Sprintf("%d of %d pods exist", status.Replicas, want)
	case status.Replicas > want:
		ready.Reason = appsv2.ReasonScalingDown
		ready.Message = fmt.Sprintf("%d pods exist, %d wanted", status.Replicas, want)
	case status.ReadyReplicas < want:
		ready.Reason = appsv2.ReasonPodsNotReady
		ready.Message = fmt.Sprintf("%d of %d pods are ready", status.ReadyReplicas, want)
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, appsv2.ReasonAllReplicasReady
		ready.Message = fmt.Sprintf("%d of %d pods are ready", status.ReadyReplicas, want)
	}
	meta.SetStatusCondition(&status.Conditions, ready)
}
