package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

// FieldManagerPrefix + P is the field manager with which the NodePool P applies its
// labels to its members. Each pool has its own, so that the API server tells the pools
// apart in a node's managedFields: what one pool applied, only that pool takes back.
const FieldManagerPrefix = "nodepool/"

// poolFieldManager returns the field manager of the NodePool named pool. A pool's name
// is at most 63 characters (its membership label), well under a field manager's 128.
func poolFieldManager(pool string) string {
	return FieldManagerPrefix + pool
}

// appliedLabels returns the labels the NodePool named pool applied to node and still
// owns, with the values node carries: the keys under metadata.labels in the
// managedFields entry of the pool's field manager (operation Apply). The API server
// writes that entry from the pool's own requests; a request that sets
// metadata.managedFields itself can write it too, so it is as trustworthy as the
// permission to write the node, no more: unlike an annotation, no edit of the node's
// labels or annotations changes it by accident.
func appliedLabels(node *corev1.Node, pool string) map[string]string {
	var labels map[string]string
	for _, entry := range node.ManagedFields {
		if entry.Manager != poolFieldManager(pool) || entry.Operation != metav1.ManagedFieldsOperationApply ||
			entry.Subresource != "" || entry.FieldsV1 == nil {
			continue
		}
		for _, key := range labelKeys(entry.FieldsV1) {
			if value, ok := node.Labels[key]; ok {
				if labels == nil {
					labels = map[string]string{}
				}
				labels[key] = value
			}
		}
	}
	return labels
}

// ownedFields is the part of a managedFields entry's fieldsV1 this controller reads:
// {"f:metadata": {"f:labels": {"f:KEY": {}}}}.
type ownedFields struct {
	Metadata struct {
		Labels map[string]json.RawMessage `json:"f:labels"`
	} `json:"f:metadata"`
}

// labelKeys returns the label keys fields owns. A set it cannot read owns none.
func labelKeys(fields *metav1.FieldsV1) []string {
	var owned ownedFields
	if err := json.Unmarshal(fields.GetRawBytes(), &owned); err != nil {
		return nil
	}
	var keys []string
	for f := range owned.Metadata.Labels {
		if key, ok := strings.CutPrefix(f, "f:"); ok {
			keys = append(keys, key)
		}
	}
	return keys
}

// applyPoolLabels applies to node, with the pool's field manager, the labels the pool
// gives it (poolShare): a member its labels, any other node none. An apply says all a
// manager wants: the API server removes the labels this manager alone owned and no
// longer applies, and keeps those another manager owns too. It returns what changed, and
// node as the API server has it after the apply.
//
// The apply never forces: a label another manager owns with another value (an admin's
// kubectl label, another pool) stays theirs. The API server refuses such an apply whole,
// naming the other manager (a conflict); the pool then applies the rest without those
// keys (applyLeavingConflicts), and the Conflict condition reports them (conflictsOn).
// The passes after it apply nothing while only held keys differ (withoutHeldKeys).
//
// The apply carries the resourceVersion of the node it was computed from, as the patch
// of lesson 05 does: a pass that read a stale node from the cache is refused (409
// Conflict), reads the node again from the API server and computes the apply anew,
// rather than apply what the node already carries and tell a change that did not happen.
func (r *NodePoolReconciler) applyPoolLabels(ctx context.Context, pool *nodesv1.NodePool, node *corev1.Node) (nodeChange, *corev1.Node, error) {
	change := nodeUnchanged
	// stale reads the node again after a conflict, and asks for another try.
	stale := func(err error) error {
		fresh := &corev1.Node{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(node), fresh); err != nil {
			node = nil
			return client.IgnoreNotFound(err)
		}
		node = fresh
		return err
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		change = nodeUnchanged
		adopted, err := r.adoptRecordedLabels(ctx, pool, node)
		switch {
		case apierrors.IsNotFound(err):
			node = nil
			return nil
		case apierrors.IsConflict(err):
			return stale(err)
		case err != nil:
			return err
		}
		node = adopted
		want, _, member := poolShare(node, pool)
		applied := appliedLabels(node, pool.Name)
		if maps.Equal(applied, withoutHeldKeys(want, applied, node)) {
			return nil
		}
		after, err := r.applyLeavingConflicts(ctx, pool, node, want)
		if apierrors.IsConflict(err) {
			return stale(err)
		}
		if node = after; err != nil || node == nil {
			return err
		}
		switch change = nodeUpdated; {
		case !member:
			change = nodeLeft
		case len(applied) == 0:
			change = nodeJoined
		}
		log.FromContext(ctx).Info("Applied the pool's labels", "node", node.Name, "change", change)
		return nil
	})
	return change, node, err
}

// withoutHeldKeys returns labels without the keys that node carries with another value
// and that the pool does not own (applied): another field manager holds them, and an
// apply of them is refused (applyLeavingConflicts). A pass whose apply would change
// nothing but those keys sends none: the keys stay held, the Conflict condition reports
// them (conflictsOn), and the node's update that frees one brings the pass that applies
// it.
func withoutHeldKeys(labels, applied map[string]string, node *corev1.Node) map[string]string {
	labels = maps.Clone(labels)
	maps.DeleteFunc(labels, func(key, value string) bool {
		carried, ok := node.Labels[key]
		_, owned := applied[key]
		return ok && carried != value && !owned
	})
	return labels
}

// applyLeavingConflicts applies labels to node; when the API server refuses keys another
// manager owns, it applies the rest again without them. It returns node as the API
// server has it, or nil when the node is gone, and the conflict of a stale node. A
// conflict that names no key it sent is returned as it is: the same apply again would
// meet the same answer, for ever.
func (r *NodePoolReconciler) applyLeavingConflicts(ctx context.Context, pool *nodesv1.NodePool, node *corev1.Node, labels map[string]string) (*corev1.Node, error) {
	labels = maps.Clone(labels)
	for {
		after, err := r.applyLabels(ctx, pool, node, labels)
		conflicting := conflictingLabels(err)
		if len(conflicting) == 0 {
			return after, err
		}
		sent := len(labels)
		for _, key := range conflicting {
			delete(labels, key)
		}
		if len(labels) == sent {
			return nil, err
		}
		log.FromContext(ctx).Info("Left labels another field manager owns", "node", node.Name, "conflict", err.Error())
	}
}

// applyLabels sends the apply: the node's name and labels, its UID and resourceVersion.
// An apply creates an object that does not exist; with a UID, the API server refuses to
// create one (Conflict, "uid mismatch") instead of making a node out of a name that was
// deleted meanwhile. Neither that conflict nor the one of a stale resourceVersion names
// a field: the caller reads the node again.
func (r *NodePoolReconciler) applyLabels(ctx context.Context, pool *nodesv1.NodePool, node *corev1.Node, labels map[string]string) (*corev1.Node, error) {
	config := corev1ac.Node(node.Name).WithUID(node.UID).WithResourceVersion(node.ResourceVersion).WithLabels(labels)
	err := r.apply(ctx, pool, config)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case apierrors.IsConflict(err):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("applying labels: %w", err)
	}
	// The answer is the whole node: read it as one, for the patch of the taints.
	after := &corev1.Node{}
	return after, answer(config, after)
}

// apply sends config, as the pool's field manager.
func (r *NodePoolReconciler) apply(ctx context.Context, pool *nodesv1.NodePool, config *corev1ac.NodeApplyConfiguration) error {
	return r.Apply(ctx, config, client.FieldOwner(poolFieldManager(pool.Name)))
}

// conflictingLabels returns the label keys an apply's conflict names, each owned by
// another manager with another value: the causes of type FieldManagerConflict, whose
// field is .metadata.labels.KEY. A key with dots in it is the rest of the field.
func conflictingLabels(err error) []string {
	var status apierrors.APIStatus
	if !apierrors.IsConflict(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	var keys []string
	for _, cause := range status.Status().Details.Causes {
		if cause.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		if key, ok := strings.CutPrefix(cause.Field, ".metadata.labels."); ok {
			keys = append(keys, key)
		}
	}
	return keys
}

// adoptRecordedLabels moves to the pool's field manager the labels a record of lesson 09
// lists, so that the pool can take them back by apply; it returns node as the API server
// has it then.
//
// The lesson-09 controller wrote the labels and its record in one merge patch: its field
// manager (operation Update) owns both. An apply of the same labels would make the
// pool's manager own them too, but not alone: when the node leaves, the empty apply
// would leave them, as owned by the old manager still. So the ownership moves, as
// k8s.io/client-go/util/csaupgrade moves it (withRecordAdopted), in a merge patch with
// the optimistic lock, as the lesson-09 operator's patches were. The values are not
// touched: no label goes missing, even for a moment.
//
// The patch sends metadata.managedFields whole, and the API server keeps the list a
// request sets. The cache holds only the entries a pass reads (poolManagedFields): a
// patch computed from the cached node would erase every other manager's entry, the
// kubelet's and an admin's, and with them the conflicts that keep the pool off their
// labels. So once the cached node shows something to move, the move is computed again
// on the node as the API server has it (r.APIReader): one read per node, once.
func (r *NodePoolReconciler) adoptRecordedLabels(ctx context.Context, pool *nodesv1.NodePool, node *corev1.Node) (*corev1.Node, error) {
	if _, moved, err := withRecordAdopted(node, pool); err != nil || !moved {
		return node, err
	}
	read := &corev1.Node{}
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(node), read); err != nil {
		return node, err // NotFound: the node is gone
	}
	adopted, moved, err := withRecordAdopted(read, pool)
	if err != nil || !moved {
		return read, err
	}
	if err := r.Patch(ctx, adopted, client.MergeFromWithOptions(read, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return read, err // the node is gone, or applyPoolLabels reads it again
		}
		return read, fmt.Errorf("adopting the labels of the record: %w", err)
	}
	log.FromContext(ctx).Info("Adopted the labels of the record", "node", node.Name)
	return adopted, nil
}

// withRecordAdopted returns a copy of node in which the labels the pool's record lists
// have moved from the managedFields entry that owns the record annotation (operation
// Update) to the pool's field manager, and whether any moved. Only what the record lists
// within listedKeys and node still carries (heldOn) moves, and only what that entry
// owns: a forged record (someone else owns the annotation) moves what its writer owns.
func withRecordAdopted(node *corev1.Node, pool *nodesv1.NodePool) (*corev1.Node, bool, error) {
	recorded := poolRecord{Labels: recordedLabels(node, pool.Name)}
	if len(recorded.Labels) == 0 {
		return node, false, nil
	}
	recorded = recorded.within(listedKeys(pool)).heldOn(node)
	writer := -1
	for i, entry := range node.ManagedFields {
		if entry.Operation == metav1.ManagedFieldsOperationUpdate && entry.FieldsV1 != nil &&
			ownsAnnotation(entry.FieldsV1, poolRecordAnnotation(pool.Name)) {
			writer = i
		}
	}
	if writer < 0 {
		return node, false, nil
	}
	adopted := node.DeepCopy()
	moved, err := moveLabels(adopted, writer, poolFieldManager(pool.Name), recorded.Labels)
	return adopted, moved, err
}

// recordedLabels returns the labels a record of lesson 09 on node lists for the NodePool
// named pool: none when node has no record of the pool, or one it cannot read. The
// records lesson 14 writes list taints alone.
func recordedLabels(node *corev1.Node, pool string) map[string]string {
	var recorded poolRecord
	value, ok := node.Annotations[poolRecordAnnotation(pool)]
	if !ok || json.Unmarshal([]byte(value), &recorded) != nil {
		return nil
	}
	return recorded.Labels
}

// ownsAnnotation reports whether fields owns the annotation key.
func ownsAnnotation(fields *metav1.FieldsV1, key string) bool {
	var owned struct {
		Metadata struct {
			Annotations map[string]json.RawMessage `json:"f:annotations"`
		} `json:"f:metadata"`
	}
	if json.Unmarshal(fields.GetRawBytes(), &owned) != nil {
		return false
	}
	_, ok := owned.Metadata.Annotations["f:"+key]
	return ok
}

// moveLabels moves the label keys of labels that the managedFields entry from owns to
// the Apply entry of manager, which it adds if node has none. It reports whether it
// moved any.
func moveLabels(node *corev1.Node, from int, manager string, labels map[string]string) (bool, error) {
	source, err := fieldsOf(node.ManagedFields[from].FieldsV1)
	if err != nil {
		return false, err
	}
	sourceLabels := childOf(childOf(source, "f:metadata"), "f:labels")
	var keys []string
	for key := range labels {
		if _, ok := sourceLabels["f:"+key]; ok {
			keys = append(keys, key)
			delete(sourceLabels, "f:"+key)
		}
	}
	if len(keys) == 0 {
		return false, nil
	}
	if len(sourceLabels) == 0 || len(sourceLabels) == 1 && sourceLabels["."] != nil {
		delete(childOf(source, "f:metadata"), "f:labels")
	}
	if err := setFields(&node.ManagedFields[from], source); err != nil {
		return false, err
	}
	target := -1
	for i, entry := range node.ManagedFields {
		if entry.Manager == manager && entry.Operation == metav1.ManagedFieldsOperationApply && entry.Subresource == "" {
			target = i
		}
	}
	if target < 0 {
		node.ManagedFields = append(node.ManagedFields, metav1.ManagedFieldsEntry{
			Manager: manager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
			Time: &metav1.Time{Time: time.Now().Truncate(time.Second)}, FieldsType: "FieldsV1",
		})
		target = len(node.ManagedFields) - 1
	}
	owned, err := fieldsOf(node.ManagedFields[target].FieldsV1)
	if err != nil {
		return false, err
	}
	metadata := childOf(owned, "f:metadata")
	if metadata == nil {
		metadata = map[string]any{}
		owned["f:metadata"] = metadata
	}
	ownedLabels := childOf(metadata, "f:labels")
	if ownedLabels == nil {
		ownedLabels = map[string]any{}
		metadata["f:labels"] = ownedLabels
	}
	for _, key := range keys {
		ownedLabels["f:"+key] = map[string]any{}
	}
	return true, setFields(&node.ManagedFields[target], owned)
}

// fieldsOf decodes a fieldsV1 set; nil is the empty set.
func fieldsOf(fields *metav1.FieldsV1) (map[string]any, error) {
	set := map[string]any{}
	raw := fields.GetRawBytes()
	if len(raw) == 0 {
		return set, nil
	}
	return set, json.Unmarshal(raw, &set)
}

// childOf returns the set under key, or nil.
func childOf(set map[string]any, key string) map[string]any {
	child, _ := set[key].(map[string]any)
	return child
}

// setFields encodes set into entry.
func setFields(entry *metav1.ManagedFieldsEntry, set map[string]any) error {
	raw, err := json.Marshal(set)
	entry.FieldsV1 = metav1.NewFieldsV1(string(raw))
	return err
}
