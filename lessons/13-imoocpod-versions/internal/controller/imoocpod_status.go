package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	appsv2 "github.com/kube-workshop/operator-workshop/lessons/13-imoocpod-versions/api/apps/v2"
)

// patchStatus completes the status a pass found and writes it with one merge patch of
// the status subresource, only when it differs from orig, the ImoocPod as the pass read
// it: a pass with nothing new to say writes nothing. Reconcile makes sure orig is not
// older than the last status patch, so its status is the one the API server holds.
// passErr is the pass's error; only a pass without one has acted on the spec, so only
// such a pass moves observedGeneration.
func (r *ImoocPodReconciler) patchStatus(ctx context.Context, orig, imoocPod *appsv2.ImoocPod, passErr error) error {
	setReadyCondition(imoocPod, passErr)
	if passErr == nil {
		imoocPod.Status.ObservedGeneration = imoocPod.Generation
	}
	if equality.Semantic.DeepEqual(orig.Status, imoocPod.Status) {
		return nil
	}

	ready := meta.FindStatusCondition(imoocPod.Status.Conditions, appsv2.ConditionReady)
	log.FromContext(ctx).Info("Updating status", "replicas", imoocPod.Status.Replicas,
		"readyReplicas", imoocPod.Status.ReadyReplicas, "ready", ready.Status, "reason", ready.Reason)
	// A merge patch carries only the fields that changed and no resourceVersion, so it
	// cannot conflict with writes of the spec: the spec is the user's, the status ours.
	if err := r.Status().Patch(ctx, imoocPod, client.MergeFrom(orig)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // Deleted since the pass read it: no status is left to write.
		}
		return fmt.Errorf("patching the status: %w", err)
	}
	// Patch put the API server's answer into imoocPod: its resourceVersion tells the next
	// pass whether the cache shows this patch yet.
	r.statusWrites.Wrote(imoocPod)
	return nil
}
