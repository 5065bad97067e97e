package controller

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/09-nodepool-deploy/api/nodes/v1"
)

func poolMemberLabel(pool string) string { return nodesv1.MemberLabelPrefix + pool }

func poolRecordAnnotation(pool string) string { return nodesv1.RecordAnnotationPrefix + pool }

// isPoolMember reports whether node belongs to the NodePool named pool.
func isPoolMember(node *corev1.Node, pool string) bool {
	_, ok := node.Labels[poolMemberLabel(pool)]
	return ok
}

// concernsPool reports whether a pass of the NodePool named pool has anything to do
// with node: a member gets the pool's labels and taints, and a node that still carries
// the pool's record has left and must lose what the pool gave it.
func concernsPool(node *corev1.Node, pool string) bool {
	_, recorded := node.Annotations[poolRecordAnnotation(pool)]
	return recorded || isPoolMember(node, pool)
}

// poolRecord is what one NodePool put on one node, in the annotation
// nodesv1.RecordAnnotationPrefix + pool: the keys of its labels and the key:effect of its
// taints (a node's taint is known by both).
//
// A node's labels do not say who set them, and the controller must never remove what
// someone else set. So it remembers what it set, and the node is the place: the record
// changes in the same patch as the labels and taints it describes, so the two never
// disagree, even when the manager dies between two writes; it outlives the pool, so a
// node that has left a pool still says what to remove; and it stays out of the pool's
// spec, which is the user's, and its status, which must never be the only copy of a
// fact. (Server-side apply tracks ownership itself, but a node's taints are an atomic
// list: applying ours would take over everyone's.)
type poolRecord struct {
	Labels []string `json:"labels,omitempty"`
	Taints []string `json:"taints,omitempty"`
}

func taintID(t corev1.Taint) string { return t.Key + ":" + string(t.Effect) }

// poolKeys are the label keys and taints (key:effect) a pool lists: what it may give a
// node, hold against another pool, and take back.
type poolKeys struct {
	labels, taints sets.Set[string]
}

// specKeys returns the keys pool's spec lists.
func specKeys(pool *nodesv1.NodePool) poolKeys {
	keys := poolKeys{labels: sets.KeySet(pool.Spec.Labels), taints: sets.New[string]()}
	for _, t := range pool.Spec.Taints {
		keys.taints.Insert(taintID(t))
	}
	return keys
}

// listedKeys returns the keys pool lists.
func listedKeys(pool *nodesv1.NodePool) poolKeys {
	keys := specKeys(pool)
	// And those its earlier specs listed, which nodes may still carry: the status keeps
	// every key the spec ever listed (rememberListedKeys).
	keys.labels.Insert(pool.Status.ListedLabels...)
	keys.taints.Insert(pool.Status.ListedTaints...)
	return keys
}

// within returns the part of record that keys lists. A record is an annotation on the
// node, which the node's kubelet may write (the NodeRestriction admission plugin lets it
// change its own node's annotations, not its taints): what it says a pool gave is only
// believed of the keys that pool lists.
func (record poolRecord) within(keys poolKeys) poolRecord {
	return poolRecord{
		Labels: slices.DeleteFunc(slices.Clone(record.Labels), func(key string) bool { return !keys.labels.Has(key) }),
		Taints: slices.DeleteFunc(slices.Clone(record.Taints), func(id string) bool { return !keys.taints.Has(id) }),
	}
}

// readPoolRecord returns the record of the NodePool named pool on node, and whether
// there is one.
func readPoolRecord(node *corev1.Node, pool string) (poolRecord, bool, error) {
	var record poolRecord
	value, ok := node.Annotations[poolRecordAnnotation(pool)]
	if !ok {
		return record, false, nil
	}
	if err := json.Unmarshal([]byte(value), &record); err != nil {
		return record, true, fmt.Errorf("annotation %s is not a record of this controller: %w",
			poolRecordAnnotation(pool), err)
	}
	return record, true, nil
}

// writePoolRecord records on node the labels and taints the NodePool named pool gives
// it. The keys are sorted: a record that encoded differently on each pass (Go's maps
// have no order) would be a change, and a write, on every pass.
func writePoolRecord(node *corev1.Node, pool string, labels map[string]string, taints []corev1.Taint) {
	record := poolRecord{Labels: slices.Sorted(maps.Keys(labels))}
	for _, t := range taints {
		record.Taints = append(record.Taints, taintID(t))
	}
	slices.Sort(record.Taints)
	value, _ := json.Marshal(record) // two lists of strings always encode
	if node.Annotations == nil {
		node.Annotations = map[string]string{}
	}
	node.Annotations[poolRecordAnnotation(pool)] = string(value)
}

// nodeChange says what a pass did to a node.
type nodeChange string

const (
	nodeUnchanged nodeChange = ""
	// nodeJoined: a member the pool had not touched yet got the pool's labels and taints.
	nodeJoined nodeChange = "joined"
	// nodeUpdated: a member's labels or taints were brought back in line with the pool.
	nodeUpdated nodeChange = "updated"
	// nodeLeft: a node that is no longer a member lost what the pool gave it.
	nodeLeft nodeChange = "left"
)

// poolShare returns what pool gives node, if anything (member): a member gets its labels
// and taints, any other node nothing. A key or taint that another pool's record on the
// node lists already stays that pool's: two pools that list one key would otherwise
// overwrite each other's value on the node forever, each write starting the other's pass.
func poolShare(node *corev1.Node, pool *nodesv1.NodePool, pools map[string]poolKeys) (labels map[string]string, taints []corev1.Taint, member bool) {
	if !isPoolMember(node, pool.Name) {
		return nil, nil, false
	}
	// A pool being deleted gives nothing, members included: its last pass takes back
	// everything it gave.
	if !pool.DeletionTimestamp.IsZero() {
		return nil, nil, false
	}
	claimedLabels, claimedTaints := claimedByOtherPools(node, pool.Name, pools)
	for key, value := range pool.Spec.Labels {
		if _, claimed := claimedLabels[key]; claimed {
			continue
		}
		if labels == nil {
			labels = map[string]string{}
		}
		labels[key] = value
	}
	for _, t := range pool.Spec.Taints {
		if _, claimed := claimedTaints[taintID(t)]; !claimed {
			taints = append(taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
	}
	return labels, taints, true
}

// claimedByOtherPools returns the label keys and taints that the records of the other
// pools on node list, of the keys those pools list (pools, by name), each with the pool
// that holds it (the first by name, when several do). A record this
// controller cannot read claims nothing (its own pool reports it), and neither does the
// record of a pool that does not exist, nor a key its pool never listed: a record is
// an annotation the node's kubelet may write, and a forged one must not make a real
// pool drop its key.
func claimedByOtherPools(node *corev1.Node, pool string, pools map[string]poolKeys) (labels, taints map[string]string) {
	labels, taints = map[string]string{}, map[string]string{}
	for _, key := range slices.Sorted(maps.Keys(node.Annotations)) {
		other, ok := strings.CutPrefix(key, nodesv1.RecordAnnotationPrefix)
		if !ok || other == pool {
			continue
		}
		keys, exists := pools[other]
		if !exists {
			continue
		}
		if record, _, err := readPoolRecord(node, other); err == nil {
			record = record.within(keys)
			for _, label := range record.Labels {
				if _, held := labels[label]; !held {
					labels[label] = other
				}
			}
			for _, taint := range record.Taints {
				if _, held := taints[taint]; !held {
					taints[taint] = other
				}
			}
		}
	}
	return labels, taints
}

// withPool returns a copy of node as pool wants it, and what changed: a member carries
// the pool's labels and taints and the record of them; any other node carries nothing
// of the pool's, record included. Either way, what the record lists and the pool no
// longer gives goes, and nothing else the node carries is touched. pools are the keys
// every existing NodePool lists, by name (listPools).
func withPool(node *corev1.Node, pool *nodesv1.NodePool, pools map[string]poolKeys) (*corev1.Node, nodeChange, error) {
	// A record this controller cannot read is dropped: the node's kubelet may write its
	// annotations, and refusing it would fail every pass of the pool, and hold a deleted
	// pool for ever. Read as empty, it is replaced (member) or removed. What the pool gave
	// the node stays: without the record, it is no longer told from anyone else's.
	record, recorded, err := readPoolRecord(node, pool.Name)
	if err != nil {
		record, recorded = poolRecord{}, false
	}
	// The record may be forged (within): take back only what the pool has listed, never
	// an admin's taint or a label the kubelet may not remove itself.
	record = record.within(listedKeys(pool))
	labels, taints, member := poolShare(node, pool, pools)

	want := node.DeepCopy()
	setPoolLabels(want, record.Labels, labels)
	setPoolTaints(want, record.Taints, taints)
	if member {
		writePoolRecord(want, pool.Name, labels, taints)
	} else {
		delete(want.Annotations, poolRecordAnnotation(pool.Name))
	}

	switch {
	case equality.Semantic.DeepEqual(node.Labels, want.Labels) &&
		equality.Semantic.DeepEqual(node.Annotations, want.Annotations) &&
		equality.Semantic.DeepEqual(node.Spec.Taints, want.Spec.Taints):
		return node, nodeUnchanged, nil
	case member && !recorded:
		return want, nodeJoined, nil
	case !member:
		return want, nodeLeft, nil
	default:
		return want, nodeUpdated, nil
	}
}

// setPoolLabels removes from node the label keys in recorded that want no longer lists,
// and sets every label of want. Labels that are neither are someone else's.
func setPoolLabels(node *corev1.Node, recorded []string, want map[string]string) {
	for _, key := range recorded {
		if _, keep := want[key]; !keep {
			delete(node.Labels, key)
		}
	}
	if len(want) > 0 && node.Labels == nil {
		node.Labels = map[string]string{}
	}
	maps.Copy(node.Labels, want)
}

// setPoolTaints removes from node the taints in recorded (key:effect) that want no
// longer lists, gives every taint of want its value, and adds the missing ones at the
// end. The other taints keep their place and their value.
func setPoolTaints(node *corev1.Node, recorded []string, want []corev1.Taint) {
	wanted := map[string]corev1.Taint{}
	for _, t := range want {
		wanted[taintID(t)] = t
	}
	stale := sets.New(recorded...)
	var taints []corev1.Taint
	for _, t := range node.Spec.Taints {
		id := taintID(t)
		if w, ok := wanted[id]; ok {
			t.Value = w.Value
			delete(wanted, id)
		} else if stale.Has(id) {
			continue
		}
		taints = append(taints, t)
	}
	for _, t := range want {
		if _, missing := wanted[taintID(t)]; missing {
			taints = append(taints, t)
		}
	}
	node.Spec.Taints = taints
}
