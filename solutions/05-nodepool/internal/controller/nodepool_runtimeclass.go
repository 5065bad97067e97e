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
	//lesson:todo(6) Create the pool's RuntimeClass and keep it in line.
	//lesson:todo Return nil for a pool without labels and taints; else the pool's labels as
	//lesson:todo the node selector (a copy, nil when there are none) and, for each taint, a
	//lesson:todo toleration with the operator Equal and the taint's key, value and effect.
	//lesson:todo See "The RuntimeClass" in docs/lesson-05.md.
	//lesson:hint poolScheduling: maps.Clone copies the labels into the node selector; each taint becomes a corev1.Toleration with the operator corev1.TolerationOpEqual.
	//lesson:hint The API server refuses to change a RuntimeClass's handler: delete the old one (client.Preconditions with its UID deletes the very object you compared) and let its delete event bring the pass that creates the new one. The scheduling can be patched (client.MergeFrom).
	//lesson:hint A Create refused with AlreadyExists (apierrors.IsAlreadyExists) means the cache has not shown your last create yet: no error. metav1.IsControlledBy tells whether the RuntimeClass there is the pool's.
	//lesson:test TestNodePoolIdlePassWritesNothing TestPoolSchedulingSelectsAndToleratesThePoolsNodes TestAStaleCacheIsNoRuntimeClassError
	//lesson:stub return nil
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
	//lesson:end
}

// reconcileRuntimeClass creates the pool's RuntimeClass, or brings it in line with the
// pool, writing only what differs.
func (r *NodePoolReconciler) reconcileRuntimeClass(ctx context.Context, pool *nodesv1.NodePool) error {
	want, err := r.newRuntimeClass(pool)
	if err != nil {
		return err
	}
	//lesson:todo(6) Create the RuntimeClass, or fix the one there.
	//lesson:todo Get the RuntimeClass named like want. Create want when there is none (a
	//lesson:todo Create refused with AlreadyExists means the cache is behind: no error);
	//lesson:todo return an error when the one there is not controlled by the pool; delete it
	//lesson:todo (with a UID precondition) when its handler differs; patch its scheduling
	//lesson:todo (client.MergeFrom) when that differs; else write nothing. Log what you do.
	//lesson:todo See "The RuntimeClass" in docs/lesson-05.md.
	//lesson:stub _ = want
	//lesson:stub return nil
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
		if err := r.Patch(ctx, &rc, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("patching RuntimeClass %s: %w", rc.Name, err)
		}
		log.Info("Updated RuntimeClass", "runtimeClass", rc.Name)
	}
	return nil
	//lesson:end
}
