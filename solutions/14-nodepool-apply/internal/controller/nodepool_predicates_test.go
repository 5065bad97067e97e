package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func TestPoolNodePredicatePassesOnlyWhatAPassReads(t *testing.T) {
	ready := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: "n1", ResourceVersion: "10",
				Labels:      map[string]string{poolMemberLabel("web"): "", "pool.example/a": "1"},
				Annotations: map[string]string{poolRecordAnnotation("web"): `{"labels":{"pool.example/a":"1"}}`},
			},
			Spec: corev1.NodeSpec{Taints: []corev1.Taint{noSchedule("pool.example/t", "1")}},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
					LastHeartbeatTime: metav1.NewTime(time.Unix(1000, 0))}},
				Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
			},
		}
	}
	tests := []struct {
		name   string
		change func(*corev1.Node)
		passes bool
	}{
		{"a heartbeat", func(n *corev1.Node) {
			n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(time.Unix(1010, 0))
			n.ResourceVersion = "11"
		}, false},
		{"another annotation changed", func(n *corev1.Node) { n.Annotations["node.alpha.kubernetes.io/ttl"] = "0" }, false},
		{"a label was added", func(n *corev1.Node) { n.Labels["zone"] = "a" }, true},
		{"the membership label went", func(n *corev1.Node) { delete(n.Labels, poolMemberLabel("web")) }, true},
		{"a pool's record changed", func(n *corev1.Node) { n.Annotations[poolRecordAnnotation("web")] = "{}" }, true},
		{"a taint went", func(n *corev1.Node) { n.Spec.Taints = nil }, true},
		{"the allocatable resources changed", func(n *corev1.Node) {
			n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("2")
		}, true},
	}
	p := poolNodeChangedPredicate()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			oldNode, newNode := ready(), ready()
			tt.change(newNode)
			g.Expect(p.Update(event.UpdateEvent{ObjectOld: oldNode, ObjectNew: newNode})).To(Equal(tt.passes),
				"should the node update %q start a pass of its pools?", tt.name)
		})
	}
	t.Run("creates and deletes always pass", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(p.Create(event.CreateEvent{Object: ready()})).To(BeTrue())
		g.Expect(p.Delete(event.DeleteEvent{Object: ready()})).To(BeTrue())
	})
}

func TestPoolsOfNodeNamesMembershipsAndRecords(t *testing.T) {
	g := NewWithT(t)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: "n1",
		Labels: map[string]string{
			poolMemberLabel("web"): "", poolMemberLabel("gpu"): "true", "kubernetes.io/hostname": "n1",
		},
		Annotations: map[string]string{poolRecordAnnotation("web"): "{}", poolRecordAnnotation("old"): "{}"},
	}}
	g.Expect(poolsOfNode(t.Context(), node)).To(ConsistOf(
		reconcile.Request{NamespacedName: clientKey("web")},
		reconcile.Request{NamespacedName: clientKey("gpu")},
		reconcile.Request{NamespacedName: clientKey("old")},
	), "the pools a node belongs to, and the pools it left that still have a record on it, each once")
}
