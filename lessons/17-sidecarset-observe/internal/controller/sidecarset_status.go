package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

// The reasons of the SidecarSets' events. An event tells of a change, once: a pass that
// finds what the last one found tells nothing.
const (
	// EventRevisionChanged: the sidecars changed, and running pods keep the old ones.
	EventRevisionChanged = "RevisionChanged"
	// EventPodsNotInjected: some selected pods run no sidecar of the SidecarSet, where
	// before every one did.
	EventPodsNotInjected = "PodsNotInjected"
	// EventReconcileError: a pass failed, with an error the last one did not have.
	EventReconcileError = "ReconcileError"
)

// patchStatus sets the conditions from the counts a pass made, and writes the status with
// one merge patch of the status subresource, only when it differs from orig's. passErr is
// the pass's error; only a pass without one moves observedGeneration. Then it tells what
// changed with events.
//
// orig comes from the cache, which may not hold the controller's own last status write
// yet. A merge patch from it would carry only what differs from that older copy, and
// leave what changed since as the API server has it: a status made of two passes. So the
// patch carries orig's resourceVersion (the optimistic lock), the API server refuses it
// when the stored SidecarSet is newer (409 Conflict), and the patch is made again from
// the SidecarSet read from the API server. When the stale copy equals what the pass
// counted, nothing is written: the event of the newer status, which every SidecarSet
// update brings (SetupWithManager), makes a pass that compares with it.
func (r *SidecarSetReconciler) patchStatus(ctx context.Context, orig, set *sidecarsv1.SidecarSet, passErr error) error {
	counted := set.Status
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		setConditions(set, passErr)
		if passErr == nil {
			set.Status.ObservedGeneration = set.Generation
		}
		if equality.Semantic.DeepEqual(orig.Status, set.Status) {
			return nil
		}
		log.FromContext(ctx).Info("Updating status", "matched", set.Status.MatchedPods,
			"injected", set.Status.InjectedPods, "outdated", set.Status.OutdatedPods, "revision", set.Status.Revision)
		err := r.Status().Patch(ctx, set, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		switch {
		case apierrors.IsConflict(err):
			fresh := &sidecarsv1.SidecarSet{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(set), fresh); err != nil {
				return client.IgnoreNotFound(err)
			}
			if fresh.Generation != set.Generation {
				// The spec changed after this pass counted: its event brings a pass of its own.
				return nil
			}
			orig, set = fresh, fresh.DeepCopy()
			set.Status.MatchedPods, set.Status.InjectedPods = counted.MatchedPods, counted.InjectedPods
			set.Status.OutdatedPods, set.Status.Revision = counted.OutdatedPods, counted.Revision
			return err
		case apierrors.IsNotFound(err):
			return nil // Deleted meanwhile: no status to write.
		case err != nil:
			return fmt.Errorf("patching the status: %w", err)
		}
		r.tellChanges(orig, set, passErr)
		return nil
	})
}

// setConditions sets Injected and UpToDate from the counts, or Injected from the pass's
// error. Their messages hold counts and revisions, never times, so that a pass that finds
// the same leaves them as they were.
func setConditions(set *sidecarsv1.SidecarSet, passErr error) {
	status := &set.Status
	injected := metav1.Condition{Type: sidecarsv1.ConditionInjected, ObservedGeneration: set.Generation}
	switch missing := status.MatchedPods - status.InjectedPods; {
	case passErr != nil:
		injected.Status, injected.Reason, injected.Message = metav1.ConditionFalse, sidecarsv1.ReasonReconcileError, passErr.Error()
		meta.SetStatusCondition(&status.Conditions, injected)
		return
	case status.MatchedPods == 0:
		injected.Status, injected.Reason = metav1.ConditionTrue, sidecarsv1.ReasonNoMatchingPods
		injected.Message = "No pod matches the selectors"
	case missing == 0:
		injected.Status, injected.Reason = metav1.ConditionTrue, sidecarsv1.ReasonAllPodsInjected
		injected.Message = fmt.Sprintf("All %d matched pods run the sidecars", status.MatchedPods)
	default:
		injected.Status, injected.Reason = metav1.ConditionFalse, sidecarsv1.ReasonPodsNotInjected
		injected.Message = fmt.Sprintf("%d of %d matched pods run no sidecar of this SidecarSet: they were created "+
			"before it, while the webhook did not answer, or with a name it could not take; they get the sidecars "+
			"only when they are recreated", missing, status.MatchedPods)
	}
	meta.SetStatusCondition(&status.Conditions, injected)

	upToDate := metav1.Condition{Type: sidecarsv1.ConditionUpToDate, ObservedGeneration: set.Generation}
	if status.OutdatedPods == 0 {
		upToDate.Status, upToDate.Reason = metav1.ConditionTrue, sidecarsv1.ReasonAllPodsUpToDate
		upToDate.Message = fmt.Sprintf("Every injected pod runs revision %s", status.Revision)
	} else {
		upToDate.Status, upToDate.Reason = metav1.ConditionFalse, sidecarsv1.ReasonOlderRevisions
		upToDate.Message = fmt.Sprintf("%d of %d injected pods run an older revision of the sidecars; a SidecarSet "+
			"change reaches no running pod: each gets revision %s when it is recreated",
			status.OutdatedPods, status.InjectedPods, status.Revision)
	}
	meta.SetStatusCondition(&status.Conditions, upToDate)
}

// tellChanges emits an event for each change between the status before a pass and after
// it that a user should hear of: a new revision that running pods do not have, pods that
// run no sidecar where before all did, a new error. Never on a pass that changed nothing
// of these: an event repeated on every pass drowns the ones that matter.
func (r *SidecarSetReconciler) tellChanges(orig, set *sidecarsv1.SidecarSet, passErr error) {
	was := meta.FindStatusCondition(orig.Status.Conditions, sidecarsv1.ConditionInjected)
	is := meta.FindStatusCondition(set.Status.Conditions, sidecarsv1.ConditionInjected)
	if orig.Status.Revision != "" && orig.Status.Revision != set.Status.Revision && set.Status.OutdatedPods > 0 {
		r.Recorder.Eventf(set, nil, corev1.EventTypeNormal, EventRevisionChanged, "Inject",
			"New pods get revision %s; %d running pods keep the sidecars of an older revision until they are recreated",
			set.Status.Revision, set.Status.OutdatedPods)
	}
	if is.Reason == sidecarsv1.ReasonPodsNotInjected && (was == nil || was.Reason != sidecarsv1.ReasonPodsNotInjected) {
		r.Recorder.Eventf(set, nil, corev1.EventTypeWarning, EventPodsNotInjected, "Inject", "%s", is.Message)
	}
	if passErr != nil && (was == nil || was.Message != is.Message) {
		r.Recorder.Eventf(set, nil, corev1.EventTypeWarning, EventReconcileError, "Reconcile", "%s", is.Message)
	}
}
