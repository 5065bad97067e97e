package controller

import (
	"bytes"
	"strings"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

// CacheByObject returns what the manager's cache holds of some kinds apart from the
// defaults (bootstrap.WithDefaults, which drops every object's managedFields): a node
// keeps the managedFields entries a pass reads (poolManagedFields); a NodePool and a
// RuntimeClass keep theirs (takeOverUpdates reads who wrote them). There is one of each
// per pool.
func CacheByObject() map[client.Object]cache.ByObject {
	return map[client.Object]cache.ByObject{
		&corev1.Node{}:         {Transform: poolManagedFields},
		&nodesv1.NodePool{}:    {Transform: keepAll},
		&nodev1.RuntimeClass{}: {Transform: keepAll},
	}
}

// keepAll keeps an object as the API server sent it.
func keepAll(obj any) (any, error) { return obj, nil }

// poolManagedFields keeps, of a node's managedFields, the entries of the pools' field
// managers (appliedLabels: what each pool owns) and those that own a pool's record
// annotation (adoptRecordedLabels: what the operator of lesson 09 wrote), and drops the
// rest: the kubelet's status updates are most of a node's managedFields, and every pass
// would hold them in memory for nothing.
func poolManagedFields(obj any) (any, error) {
	node, ok := obj.(*corev1.Node)
	if !ok {
		return obj, nil
	}
	var kept []metav1.ManagedFieldsEntry
	for _, entry := range node.ManagedFields {
		pool := strings.HasPrefix(entry.Manager, FieldManagerPrefix)
		record := bytes.Contains(entry.FieldsV1.GetRawBytes(), []byte(`"f:`+nodesv1.RecordAnnotationPrefix))
		if pool || record {
			kept = append(kept, entry)
		}
	}
	node.ManagedFields = kept
	return node, nil
}
