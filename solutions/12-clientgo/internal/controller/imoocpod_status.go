package controller

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/12-clientgo/api/apps/v1"
)

// patchStatus completes the status a pass found and writes it with one merge patch of
// the status subresource, only when it differs from orig, the ImoocPod as the pass read
// it: a pass with nothing new to say writes nothing. sync makes sure orig is not older
// than the last status patch, so its status is the one the API server holds. passErr is
// the pass's error; only a pass without one has acted on the spec, so only such a pass
// moves observedGeneration.
func (c *Controller) patchStatus(ctx context.Context, orig, imoocPod *appsv1.ImoocPod, passErr error) error {
	setReadyCondition(imoocPod, passErr)
	if passErr == nil {
		imoocPod.Status.ObservedGeneration = imoocPod.Generation
	}
	if equality.Semantic.DeepEqual(orig.Status, imoocPod.Status) {
		return nil
	}

	ready := meta.FindStatusCondition(imoocPod.Status.Conditions, appsv1.ConditionReady)
	logr.FromContextOrDiscard(ctx).Info("Updating status", "replicas", imoocPod.Status.Replicas,
		"readyReplicas", imoocPod.Status.ReadyReplicas, "ready", ready.Status, "reason", ready.Reason)
	if err := c.imoocPods.PatchStatus(ctx, orig, imoocPod); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // Deleted since the pass read it: no status is left to write.
		}
		return fmt.Errorf("patching the status: %w", err)
	}
	// PatchStatus left the answer's resourceVersion in imoocPod: it tells the next pass
	// whether the informer shows this patch yet.
	c.statusWrites.Wrote(imoocPod)
	return nil
}
