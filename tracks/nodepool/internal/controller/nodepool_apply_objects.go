package controller

import (
	"context"
	"encoding/json"
	"fmt"

	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	nodev1ac "k8s.io/client-go/applyconfigurations/node/v1"
	"k8s.io/client-go/util/csaupgrade"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/tracks/nodepool/api/nodes/v1"
	nodesv1ac "github.com/kube-workshop/operator-workshop/tracks/nodepool/api/nodes/v1/applyconfiguration/nodes/v1"
)

// ControllerFieldManager is the field manager with which the controller applies what is
// each pool's alone: its status and its RuntimeClass. Nobody else has a say in them, so
// these applies force (client.ForceOwnership), unlike the labels' (applyPoolLabels).
const ControllerFieldManager = "nodepool"

// applyStatus writes pool's status by apply, through the status subresource: the whole
// status, so that what the pass no longer sets (a resource no member has any more, a
// key no longer listed) goes. The apply configuration comes from the NodePool's own,
// which controller-gen generates (api/nodes/v1/applyconfiguration). It puts the API
// server's answer into pool: its resourceVersion tells the next pass whether the cache
// shows this write (statusWrites).
func (r *NodePoolReconciler) applyStatus(ctx context.Context, pool *nodesv1.NodePool) error {
	if err := r.takeOverUpdates(ctx, pool, "status", func(metav1.ManagedFieldsEntry) bool { return true }); err != nil {
		return err
	}
	status := nodesv1ac.NodePoolStatus().
		WithNodeCount(pool.Status.NodeCount).
		WithListedLabels(pool.Status.ListedLabels...).
		WithListedTaints(pool.Status.ListedTaints...).
		WithObservedGeneration(pool.Status.ObservedGeneration)
	if len(pool.Status.Allocatable) > 0 {
		status.WithAllocatable(pool.Status.Allocatable)
	}
	for _, c := range pool.Status.Conditions {
		status.WithConditions(metav1ac.Condition().
			WithType(c.Type).WithStatus(c.Status).WithObservedGeneration(c.ObservedGeneration).
			WithLastTransitionTime(c.LastTransitionTime).WithReason(c.Reason).WithMessage(c.Message))
	}
	// The UID makes the apply refuse to create a pool that was deleted meanwhile.
	config := nodesv1ac.NodePool(pool.Name).WithUID(pool.UID).WithStatus(status)
	if err := r.Status().Apply(ctx, config, client.FieldOwner(ControllerFieldManager), client.ForceOwnership); err != nil {
		return err
	}
	return answer(config, pool)
}

// applyRuntimeClass writes the scheduling of want, the pool's RuntimeClass, by apply. rc is
// the RuntimeClass as read, which the pool controls: the apply carries its UID, so that
// it never creates one, nor writes to another of the same name.
func (r *NodePoolReconciler) applyRuntimeClass(ctx context.Context, pool *nodesv1.NodePool, rc, want *nodev1.RuntimeClass) error {
	if err := r.takeOverUpdates(ctx, rc, "", ownsReferenceTo(pool)); err != nil {
		return err
	}
	config := nodev1ac.RuntimeClass(want.Name).WithUID(rc.UID).WithHandler(want.Handler)
	for _, ref := range want.OwnerReferences {
		config.WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(ref.APIVersion).WithKind(ref.Kind).WithName(ref.Name).WithUID(ref.UID).
			WithController(*ref.Controller).WithBlockOwnerDeletion(*ref.BlockOwnerDeletion))
	}
	if s := want.Scheduling; s != nil {
		scheduling := nodev1ac.Scheduling().WithNodeSelector(s.NodeSelector)
		for _, t := range s.Tolerations {
			scheduling.WithTolerations(corev1ac.Toleration().
				WithKey(t.Key).WithOperator(t.Operator).WithValue(t.Value).WithEffect(t.Effect))
		}
		config.WithScheduling(scheduling)
	}
	if err := r.Apply(ctx, config, client.FieldOwner(ControllerFieldManager), client.ForceOwnership); err != nil {
		return err
	}
	return answer(config, rc)
}

// ownsReferenceTo returns whether a managedFields entry owns the OwnerReference to pool:
// the entry of whoever created the pool's RuntimeClass (this controller, with Create,
// or the operator of lesson 09), and of nobody else.
func ownsReferenceTo(pool *nodesv1.NodePool) func(metav1.ManagedFieldsEntry) bool {
	return func(entry metav1.ManagedFieldsEntry) bool {
		fields, err := fieldsOf(entry.FieldsV1)
		references := childOf(childOf(fields, "f:metadata"), "f:ownerReferences")
		return err == nil && references[fmt.Sprintf(`k:{"uid":%q}`, pool.UID)] != nil
	}
}

// takeOverUpdates makes ControllerFieldManager's apply own what the Update managers that
// ours selects own on obj's subresource ("status", or "" for obj itself): what the
// controller wrote before it applied (its Create of the RuntimeClass, the merge patches
// of lesson 09). Without it, a field the apply no longer says would stay, owned by them
// still: the API server removes only what no manager owns any more. The ownership moves
// as k8s.io/client-go/util/csaupgrade moves it (kubectl apply --server-side does the
// same for what client-side kubectl apply wrote): one JSON patch of the managedFields,
// which the API server refuses (Conflict) if the object changed since it was read. The
// values are not touched, neither on the server nor in obj.
//
// obj may come from the cache, or predate a write of this very pass: when it shows such
// managers, the object is read again from the API server, and the managers taken from
// that copy. Once they are taken over, no Update manager is left to find: one read and
// one patch per object, once.
func (r *NodePoolReconciler) takeOverUpdates(ctx context.Context, obj client.Object, subresource string, ours func(metav1.ManagedFieldsEntry) bool) error {
	if updateManagers(obj, subresource, ours).Len() == 0 {
		return nil
	}
	latest := obj.DeepCopyObject().(client.Object)
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(obj), latest); err != nil {
		return fmt.Errorf("reading who wrote %s: %w", obj.GetName(), err)
	}
	managers := updateManagers(latest, subresource, ours)
	if managers.Len() == 0 {
		return nil
	}
	patch, err := csaupgrade.UpgradeManagedFieldsPatch(latest, managers, ControllerFieldManager, csaupgrade.Subresource(subresource))
	if err != nil || patch == nil {
		return err
	}
	if err := r.Patch(ctx, latest, client.RawPatch(types.JSONPatchType, patch)); err != nil {
		return fmt.Errorf("taking over the fields of %v: %w", sets.List(managers), err)
	}
	return nil
}

// updateManagers returns the managers of operation Update that ours selects among those
// of obj's subresource.
func updateManagers(obj client.Object, subresource string, ours func(metav1.ManagedFieldsEntry) bool) sets.Set[string] {
	managers := sets.New[string]()
	for _, entry := range obj.GetManagedFields() {
		if entry.Operation == metav1.ManagedFieldsOperationUpdate && entry.Subresource == subresource && ours(entry) {
			managers.Insert(entry.Manager)
		}
	}
	return managers
}

// answer sets obj to the API server's answer to an apply, which the client's Apply method
// put into config: the whole object.
func answer[T any](config any, obj *T) error {
	raw, err := json.Marshal(config)
	if err != nil {
		return err
	}
	var answered T
	if err := json.Unmarshal(raw, &answered); err != nil {
		return err
	}
	*obj = answered
	return nil
}
