package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/tracks/mydaemonset/api/apps/v1"
)

// Which nodes get a pod is a pure function of the MyDaemonSet and the node: a table of
// cases runs in microseconds, no API server needed.
func TestWhichNodesGetAPod(t *testing.T) {
	//lesson:4.10
	//lesson:stub _ = NewWithT(t) // the package's tests assert with Gomega; yours too
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	notReady := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
	gpu := map[string]string{"gpu": "true", "zone": "a"}
	cases := []struct {
		name     string
		selector map[string]string
		labels   map[string]string
		cordoned bool
		status   []corev1.NodeCondition
		want     bool
	}{
		{"no selector: every node", nil, nil, false, ready, true},
		{"every label of the selector", map[string]string{"gpu": "true"}, gpu, false, ready, true},
		{"a label of the selector missing", map[string]string{"disk": "ssd"}, gpu, false, ready, false},
		{"a label with another value", map[string]string{"gpu": "false"}, gpu, false, ready, false},
		{"a cordoned node", nil, gpu, true, ready, false},
		{"a node that is not ready keeps its pod", map[string]string{"gpu": "true"}, gpu, false, notReady, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mds := &appsv1.MyDaemonSet{Spec: appsv1.MyDaemonSetSpec{NodeSelector: c.selector}}
			node := &corev1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: c.labels},
				Spec:       corev1.NodeSpec{Unschedulable: c.cordoned},
				Status:     corev1.NodeStatus{Conditions: c.status},
			}
			NewWithT(t).Expect(nodeMatches(mds, node)).To(Equal(c.want), "does the node get a pod (%s)?", c.name)
		})
	}
	//lesson:end
}
