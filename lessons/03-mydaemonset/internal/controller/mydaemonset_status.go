package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/03-mydaemonset/api/apps/v1"
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
	// TODO(8): Set the Ready condition.
	// The Ready condition holds the first row of the table above that applies, a message
	// with the counts or the error (never a time), and the MyDaemonSet's generation as
	// its observedGeneration. See "The status and the Ready condition" in
	// docs/lesson-03.md.
}
