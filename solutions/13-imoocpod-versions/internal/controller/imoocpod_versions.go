package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v1"
	appsv2 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v2"
)

// What the controller does about the versions of ImoocPod: v1's objects and pods live on
// after the upgrade to v2.

// setTemplateAnnotationCondition sets the condition TemplateAnnotationIgnored while
// imoocPod, read in v2, carries v1's TemplateAnnotation, and removes it otherwise. The
// conversion from v1 leaves there an annotation it could not use rather than fail (a
// conversion that fails makes every list of ImoocPods fail): the user who wrote it
// learns here, and in the manager's log, that the pods run what spec.image said.
func setTemplateAnnotationCondition(ctx context.Context, imoocPod *appsv2.ImoocPod) {
	conditions := &imoocPod.Status.Conditions
	saved, ok := imoocPod.Annotations[appsv1.TemplateAnnotation]
	if !ok {
		meta.RemoveStatusCondition(conditions, appsv2.ConditionTemplateAnnotationIgnored)
		return
	}
	ignored := metav1.Condition{
		Type:               appsv2.ConditionTemplateAnnotationIgnored,
		Status:             metav1.ConditionTrue,
		ObservedGeneration: imoocPod.Generation,
		Reason:             appsv2.ReasonWrittenInV2,
		Message: fmt.Sprintf("v2 reads its template from spec.template alone; the annotation %s is v1's",
			appsv1.TemplateAnnotation),
	}
	if _, errs := appsv1.ParseTemplateAnnotation(saved); len(errs) > 0 {
		ignored.Reason = appsv2.ReasonInvalidTemplate
		ignored.Message = fmt.Sprintf("%s; the pods are made from spec.template, as v1's spec.image says it: "+
			"remove the annotation, and write the template in v2", errs.ToAggregate())
	}
	if meta.SetStatusCondition(conditions, ignored) {
		log.FromContext(ctx).Info("Warning: ignoring the template annotation", "annotation", appsv1.TemplateAnnotation,
			"reason", ignored.Reason, "message", ignored.Message)
	}
}

// ownInV2 moves to v2 the owner references of pods that name imoocPod, by its UID, in
// another version: the pods lesson 02's controller made name apps.workshop.dev/v1. The
// garbage collector finds an owner through the version its reference names; once v1 is
// no longer served, it could not, and would never delete those pods with their
// ImoocPod. References to other owners are not touched: a strategic merge patch changes
// the one reference its uid names (ownerReferences merge on uid).
func (r *ImoocPodReconciler) ownInV2(ctx context.Context, imoocPod *appsv2.ImoocPod, pods []corev1.Pod) error {
	version := appsv2.GroupVersion.String()
	for i := range pods {
		pod := &pods[i]
		// The pod comes from the cache, which others share: change a copy.
		moved, changed := pod.DeepCopy(), false
		for j, ref := range moved.OwnerReferences {
			if ref.UID == imoocPod.UID && ref.APIVersion != version {
				moved.OwnerReferences[j].APIVersion, changed = version, true
			}
		}
		if !changed {
			continue
		}
		if err := r.Patch(ctx, moved, client.StrategicMergeFrom(pod)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("moving the owner reference of pod %s to %s: %w", pod.Name, version, err)
		}
		log.FromContext(ctx).Info("Moved the owner reference to v2", "pod", pod.Name, "apiVersion", version)
	}
	return nil
}
