package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// patchStatus completes the status a pass found and writes it with one merge patch, only
// when it differs from orig's, as in lesson 02: an idle pass writes nothing, and only a
// pass without an error moves observedGeneration. Reconcile makes sure orig is not older
// than the last status patch, which patchStatus records. A merge patch carries only the
// fields that changed and no resourceVersion, so it cannot conflict with writes of the
// spec.
func (r *MyDaemonSetReconciler) patchStatus(ctx context.Context, orig, mds *appsv1.MyDaemonSet, passErr error) error {
	setMyDaemonSetReadyCondition(mds, passErr)
	if passErr == nil {
		mds.Status.ObservedGeneration = mds.Generation
	}
	if equality.Semantic.DeepEqual(orig.Status, mds.Status) {
		return nil
	}

	status := &mds.Status
	log := log.FromContext(ctx).WithValues("desired", status.DesiredNumberScheduled,
		"current", status.CurrentNumberScheduled, "updated", status.UpdatedNumberScheduled,
		"available", status.NumberAvailable)
	if ready := meta.FindStatusCondition(status.Conditions, appsv1.ConditionReady); ready != nil {
		log = log.WithValues("ready", ready.Status, "reason", ready.Reason)
	}
	log.Info("Updating status")
	if err := r.Status().Patch(ctx, mds, client.MergeFrom(orig)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // Deleted since the pass read it: no status is left to write.
		}
		return fmt.Errorf("patching the status: %w", err)
	}
	r.statusWrites.Wrote(mds)
	return nil
}

// setMyDaemonSetReadyCondition sets the Ready condition from the counts in the status
// and the pass's error, the first row that applies:
//
//	the pass failed                        False  ReconcileError
//	a pod runs an old image                False  RollingOut
//	a node that should run a pod has none  False  PodsMissing
//	a pod is not ready                     False  PodsNotReady
//	otherwise                              True   AllPodsAvailable
func setMyDaemonSetReadyCondition(mds *appsv1.MyDaemonSet, passErr error) {
	status := &mds.Status
	ready := metav1.Condition{
		Type:               appsv1.ConditionReady,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: mds.Generation,
	}
	switch {
	case passErr != nil:
		ready.Reason, ready.Message = appsv1.ReasonReconcileError, passErr.Error()
	case status.UpdatedNumberScheduled < status.CurrentNumberScheduled:
		ready.Reason = appsv1.ReasonRollingOut
		ready.Message = fmt.Sprintf("%d of %d pods run the new image", status.UpdatedNumberScheduled, status.DesiredNumberScheduled)
	case status.CurrentNumberScheduled < status.DesiredNumberScheduled:
		ready.Reason = appsv1.ReasonPodsMissing
		ready.Message = fmt.Sprintf("%d of %d nodes run a pod", status.CurrentNumberScheduled, status.DesiredNumberScheduled)
	case status.NumberAvailable < status.DesiredNumberScheduled:
		ready.Reason = appsv1.ReasonPodsNotReady
		ready.Message = fmt.Sprintf("%d of %d pods are ready", status.NumberAvailable, status.DesiredNumberScheduled)
	default:
		ready.Status, ready.Reason = metav1.ConditionTrue, appsv1.ReasonAllPodsAvailable
		ready.Message = fmt.Sprintf("%d of %d pods are ready", status.NumberAvailable, status.DesiredNumberScheduled)
	}
	meta.SetStatusCondition(&status.Conditions, ready)
}
