package controller

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/05-nodepool/api/nodes/v1"
)

// newRuntimeClass returns the RuntimeClass pool asks for: its handler, a node selector of
// its labels, a toleration of each of its taints, and a controller OwnerReference to the
// pool, so that the garbage collector deletes it with the pool.
func (r *NodePoolReconciler) newRuntimeClass(pool *nodesv1.NodePool) (*nodev1.RuntimeClass, error) {
	rc := &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: nodesv1.RuntimeClassPrefix + pool.Name},
		Handler:    pool.Spec.Handler,
		Scheduling: poolScheduling(pool),
	}
	if err := controllerutil.SetControllerReference(pool, rc, r.Scheme); err != nil {
		return nil, fmt.Errorf("setting the controller reference: %w", err)
	}
	return rc, nil
}

// poolScheduling returns what the API server's RuntimeClass admission adds to every pod
// of the class: the pool's labels as a node selector, so the pod lands on a member, and a
// toleration of each of the pool's taints, so the members accept it. A pool with neither
// has no scheduling at all, as the API server stores it.
func poolScheduling(pool *nodesv1.NodePool) *nodev1.Scheduling {
	if len(pool.Spec.Labels) == 0 && len(pool.Spec.Taints) == 0 {
		return nil
	}
	scheduling := &nodev1.Scheduling{}
	if len(pool.Spec.Labels) > 0 {
		scheduling.NodeSelector = maps.Clone(pool.Spec.Labels)
	}
	for _, t := range pool.Spec.Taints {
		scheduling.Tolerations = append(scheduling.Tolerations, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect,
		})
	}
	return scheduling
}

// reconcileRuntimeClass creates the pool's RuntimeClass, or brings it in line with the
// pool, writing only what differs.
func (r *NodePoolReconciler) reconcileRuntimeClass(ctx context.Context, pool *nodesv1.NodePool) error {
	want, err := r.newRuntimeClass(pool)
	if err != nil {
		return err
	}
	log := log.FromContext(ctx)
	var rc nodev1.RuntimeClass
	err = r.Get(ctx, client.ObjectKeyFromObject(want), &rc)
	switch {
	case apierrors.IsNotFound(err):
		err := r.Create(ctx, want)
		if apierrors.IsAlreadyExists(err) {
			// "None" is what the cache says, and the cache may be behind: most often the
			// pass before this one created the RuntimeClass, and the watch event of that
			// create has not reached the cache yet. Nothing failed. That event brings the
			// next pass, which compares the RuntimeClass with the pool (and reports one
			// that is not the pool's).
			log.Info("RuntimeClass exists already; waiting for the cache to show it", "runtimeClass", want.Name)
			return nil
		}
		if err != nil {
			return fmt.Errorf("creating RuntimeClass %s: %w", want.Name, err)
		}
		log.Info("Created RuntimeClass", "runtimeClass", want.Name, "handler", want.Handler)
		return nil
	case err != nil:
		return fmt.Errorf("getting RuntimeClass %s: %w", want.Name, err)
	case !metav1.IsControlledBy(&rc, pool):
		// Someone else's, or a deleted pool's of the same name that the garbage collector
		// has not reached yet: never take it over. The retry finds it gone.
		return fmt.Errorf("RuntimeClass %s exists and is not controlled by this NodePool", rc.Name)
	case rc.Handler != want.Handler:
		// The API server refuses to change a RuntimeClass's handler. Delete it: its delete
		// event brings the next pass, which creates it with the new handler. The
		// precondition makes sure we delete the very object we compared.
		err := r.Delete(ctx, &rc, client.Preconditions{UID: &rc.UID, ResourceVersion: &rc.ResourceVersion})
		if client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting RuntimeClass %s to change its handler: %w", rc.Name, err)
		}
		log.Info("Deleted RuntimeClass to change its handler", "runtimeClass", rc.Name, "from", rc.Handler, "to", want.Handler)
		return nil
	case !equality.Semantic.DeepEqual(rc.Scheduling, want.Scheduling):
		orig := rc.DeepCopy()
		rc.Scheduling = want.Scheduling
		err := r.Patch(ctx, &rc, client.MergeFrom(orig))
		if err != nil {
			return fmt.Errorf("writing RuntimeClass %s: %w", rc.Name, err)
		}
		log.Info("Updated RuntimeClass", "runtimeClass", rc.Name)
	}
	return nil
}
