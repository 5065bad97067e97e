package controller

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
)

func TestPodNamesComeFromTheNode(t *testing.T) {
	g := NewWithT(t)
	g.Expect(podName("agent", "node-000001")).To(Equal("agent-node-000001"), "a short name is <mds>-<node>")

	longNode := "ip-10-0-12-34.eu-west-1.compute.internal.example-cluster.example.com"
	long := podName("monitoring-agent", longNode)
	g.Expect(len(long)).To(BeNumerically("<=", maxPodNameLength), "%q is too long", long)
	g.Expect(validation.IsDNS1123Subdomain(long)).To(BeEmpty(), "%q should be a valid pod name", long)
	g.Expect(long).To(HavePrefix("monitoring-agent-ip-10-0-12-34"), "a cut name still says where it comes from")
	g.Expect(podName("monitoring-agent", longNode)).To(Equal(long), "the name is the same on every pass")
	g.Expect(podName("monitoring-agent", longNode+"x")).NotTo(Equal(long),
		"two nodes whose names differ only after the cut get different pod names")

	// The cut falls right after a "-" or a "."; a name must not end in one.
	for i := range 12 {
		name := podName("a", strings.Repeat("b", 50+i)+".-"+strings.Repeat("c", 20))
		g.Expect(validation.IsDNS1123Subdomain(name)).To(BeEmpty(), "%q should be a valid pod name", name)
		g.Expect(len(name)).To(BeNumerically("<=", maxPodNameLength))
	}
}

func TestNodeMatches(t *testing.T) {
	mds := func(selector map[string]string) *appsv1.MyDaemonSet {
		return &appsv1.MyDaemonSet{Spec: appsv1.MyDaemonSetSpec{NodeSelector: selector}}
	}
	node := func(labels map[string]string, cordoned bool) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels},
			Spec:       corev1.NodeSpec{Unschedulable: cordoned},
		}
	}
	ssd := map[string]string{"disk": "ssd", "zone": "a"}
	tests := []struct {
		name    string
		mds     *appsv1.MyDaemonSet
		node    *corev1.Node
		matches bool
	}{
		{"no selector, any node", mds(nil), node(nil, false), true},
		{"the node has every label", mds(map[string]string{"disk": "ssd"}), node(ssd, false), true},
		{"the node has all of several labels", mds(ssd), node(ssd, false), true},
		{"a label has another value", mds(map[string]string{"disk": "hdd"}), node(ssd, false), false},
		{"a label is missing", mds(map[string]string{"gpu": "true"}), node(ssd, false), false},
		{"the node is cordoned", mds(nil), node(ssd, true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(nodeMatches(tt.mds, tt.node)).To(Equal(tt.matches),
				"does a pod of the MyDaemonSet belong on the node when %s?", tt.name)
		})
	}
}

// planFixture is a MyDaemonSet with the nodes and pods of every case planPods decides:
// each node says in its comment what should happen to it.
func planFixture() (*appsv1.MyDaemonSet, []corev1.Node, []corev1.Pod) {
	mds := &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "mds-uid"},
		Spec:       appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: map[string]string{"role": "agent"}},
	}
	node := func(name string, ready, cordoned bool, role string) corev1.Node {
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		return corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"role": role}},
			Spec:       corev1.NodeSpec{Unschedulable: cordoned},
			Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}},
		}
	}
	pod := func(name, node string, ready bool, change ...func(*corev1.Pod)) corev1.Pod {
		p := corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: k8stypes.UID("uid-" + name),
				OwnerReferences: []metav1.OwnerReference{{
					APIVersion: appsv1.GroupVersion.String(), Kind: "MyDaemonSet", Name: "agent", UID: "mds-uid",
					Controller: ptr.To(true),
				}}},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
		}
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		for _, c := range change {
			c(&p)
		}
		return p
	}
	terminating := func(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(metav1.NewTime(time.Unix(1, 0))) }
	failed := func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }
	foreign := func(p *corev1.Pod) { p.OwnerReferences[0].UID = "someone-else" }
	oldImage := func(p *corev1.Pod) { p.Spec.Containers[0].Image = newPauseImage }
	tainted := func(n corev1.Node, effect corev1.TaintEffect) corev1.Node {
		n.Spec.Taints = []corev1.Taint{{Key: "example.com/maintenance", Effect: effect}}
		return n
	}

	nodes := []corev1.Node{
		node("ready", true, false, "agent"),                                                   // runs its pod
		node("new", true, false, "agent"),                                                     // gets a pod
		node("notready", false, false, "agent"),                                               // keeps its pod
		node("notready-empty", false, false, "agent"),                                         // gets none until Ready
		node("cordoned", true, true, "agent"),                                                 // loses its pod
		node("relabelled", true, false, "db"),                                                 // loses its pod
		node("draining", true, false, "agent"),                                                // waits for its terminating pod
		node("crashed", true, false, "agent"),                                                 // its Failed pod goes
		node("outdated", true, false, "agent"),                                                // runs an old image
		tainted(node("noschedule", true, false, "agent"), corev1.TaintEffectNoSchedule),       // keeps its pod
		tainted(node("noschedule-empty", true, false, "agent"), corev1.TaintEffectNoSchedule), // gets none
		tainted(node("noexecute", true, false, "agent"), corev1.TaintEffectNoExecute),         // loses its pod
	}
	pods := []corev1.Pod{
		pod("agent-ready", "ready", true),
		pod("agent-notready", "notready", true),
		pod("agent-cordoned", "cordoned", true),
		pod("agent-relabelled", "relabelled", true),
		pod("agent-gone", "gone", true),
		pod("agent-draining", "draining", false, terminating),
		pod("agent-crashed", "crashed", false, failed),
		pod("agent-outdated", "outdated", true, oldImage),
		pod("agent-noschedule", "noschedule", true),
		pod("agent-noexecute", "noexecute", true),
		pod("copy-of-agent-ready", "ready", true),
		pod("agent-new", "new", true, foreign),
	}
	return mds, nodes, pods
}

// The first half of planPods: which pods go whatever else the pass decides.
func TestPlanPodsPicksThePodsToRemove(t *testing.T) {
	g := NewWithT(t)
	mds, nodes, pods := planFixture()
	plan := planPods(mds, nodes, pods)
	g.Expect(podNames(plan.remove)).To(ConsistOf("agent-cordoned", "agent-relabelled", "agent-gone",
		"agent-crashed", "copy-of-agent-ready", "agent-noexecute"),
		"the pods to remove: on a node that is gone, cordoned, relabelled or tainted NoExecute; finished; "+
			"or not named after their node")
}

func TestPlanPods(t *testing.T) {
	g := NewWithT(t)
	mds, nodes, pods := planFixture()
	plan := planPods(mds, nodes, pods)

	g.Expect(names(plan.create...)).To(ConsistOf("new"),
		"a pod is created on each Ready, matching node without one, once the node's old pod is gone")
	g.Expect(podNames(plan.remove)).To(ConsistOf("agent-cordoned", "agent-relabelled", "agent-gone",
		"agent-crashed", "copy-of-agent-ready", "agent-noexecute"), "the pods to remove")
	g.Expect(podNames(plan.replace)).To(BeEmpty(),
		"nodes are without a ready pod (new, draining, crashed): the budget is spent")
	g.Expect(plan.desired).To(BeEquivalentTo(7), "ready, new, notready, draining, crashed, outdated, noschedule")
	g.Expect(plan.current).To(BeEquivalentTo(4), "ready, notready, outdated, noschedule run an active pod")
	g.Expect(plan.updated).To(BeEquivalentTo(3), "ready, notready, noschedule run spec.image")
	g.Expect(plan.available).To(BeEquivalentTo(4), "ready, notready, outdated, noschedule are ready")
	g.Expect(pods[0].Name).To(Equal("agent-ready"), "the input comes from the cache and must not change")
}

func TestTheRollingBudget(t *testing.T) {
	g := NewWithT(t)
	outdated := func(name string, ready bool) *corev1.Pod {
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Status:     corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
		}
	}
	a, b, c := outdated("a", true), outdated("b", true), outdated("c", true)
	broken := outdated("broken", false)

	g.Expect(podNames(outdatedPodsToDelete([]*corev1.Pod{a, b, c}, 0))).To(Equal([]string{"a"}),
		"every node has a ready pod: one ready pod may go")
	g.Expect(podNames(outdatedPodsToDelete([]*corev1.Pod{a, b, c}, 1))).To(BeEmpty(),
		"a node is without a ready pod already: no ready pod may go")
	g.Expect(podNames(outdatedPodsToDelete([]*corev1.Pod{a, broken, b}, 1))).To(Equal([]string{"broken"}),
		"a pod that is not ready serves nothing and goes without using the budget")
	g.Expect(podNames(outdatedPodsToDelete(nil, 0))).To(BeEmpty(), "nothing outdated, nothing to delete")
}

// podNames returns the names of the pods, in their order.
func podNames(pods []*corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
