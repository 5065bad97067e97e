package controller

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
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
	tests := []testenv.UpdateCase[*corev1.Node]{
		testenv.Ignores("a heartbeat", func(n *corev1.Node) {
			n.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(time.Unix(1010, 0))
			n.ResourceVersion = "11"
		}),
		testenv.Ignores("another annotation changed", func(n *corev1.Node) { n.Annotations["node.alpha.kubernetes.io/ttl"] = "0" }),
		testenv.Passes("a label was added", func(n *corev1.Node) { n.Labels["zone"] = "a" }),
		testenv.Passes("the membership label went", func(n *corev1.Node) { delete(n.Labels, poolMemberLabel("web")) }),
		testenv.Passes("a pool's record changed", func(n *corev1.Node) { n.Annotations[poolRecordAnnotation("web")] = "{}" }),
		testenv.Passes("a taint went", func(n *corev1.Node) { n.Spec.Taints = nil }),
		//stage:7
		testenv.Passes("the allocatable resources changed", func(n *corev1.Node) {
			n.Status.Allocatable[corev1.ResourceCPU] = resource.MustParse("2")
		}),
		//stage:end
	}
	testenv.ExpectPredicate(t, poolNodeChangedPredicate(), ready, tests)
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
