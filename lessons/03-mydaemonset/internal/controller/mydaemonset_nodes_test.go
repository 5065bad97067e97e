package controller

import (
	"maps"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/03-mydaemonset/api/apps/v1"
)

// The map function is called with nodes that need not exist: it reads only their name
// and labels, and the MyDaemonSets and pods of the API server.
func TestNodeEventsReachOnlyTheMyDaemonSetsTheyConcern(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	web := unmanaged(newMyDaemonSet(ns, "web", map[string]string{"role": "web"}))
	db := unmanaged(newMyDaemonSet(ns, "db", map[string]string{"role": "db"}))
	for _, mds := range []*appsv1.MyDaemonSet{web, db} {
		g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	}
	r := &MyDaemonSetReconciler{Client: env.Client, Scheme: env.Client.Scheme()}
	node := func(name, role string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: ns + "-" + name, Labels: map[string]string{testNodeLabel: ns, "role": role},
		}}
	}

	g.Expect(r.mydaemonsetsForNode(ctx, node("n1", "web"))).To(ConsistOf(requestFor(web)),
		"a node labelled role=web concerns the MyDaemonSet web only")
	g.Expect(r.mydaemonsetsForNode(ctx, node("n1", "db"))).To(ConsistOf(requestFor(db)),
		"a node labelled role=db concerns the MyDaemonSet db only")
	g.Expect(r.mydaemonsetsForNode(ctx, node("n1", "cache"))).To(BeEmpty(),
		"a node labelled role=cache concerns no MyDaemonSet")

	// A pod of db on a node whose labels match neither: db placed it when they matched.
	onNode := node("n2", "cache")
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: podName(db.Name, onNode.Name)},
		Spec: corev1.PodSpec{
			NodeName:   onNode.Name,
			Containers: []corev1.Container{{Name: "app", Image: pauseImage}},
		},
	}
	g.Expect(controllerutil.SetControllerReference(db, pod, env.Client.Scheme())).To(Succeed())
	g.Expect(env.Client.Create(ctx, pod)).To(Succeed())
	g.Expect(r.mydaemonsetsForNode(ctx, onNode)).To(ConsistOf(requestFor(db)),
		"a node concerns the MyDaemonSets that have a pod on it, whatever its labels")

	// What the watch does with an update: the node's labels moved from role=web to
	// role=cache, and the MyDaemonSet web must hear of it to remove its pod.
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer queue.ShutDown()
	handler.EnqueueRequestsFromMapFunc(r.mydaemonsetsForNode).Update(ctx,
		event.UpdateEvent{ObjectOld: node("n1", "web"), ObjectNew: node("n1", "cache")}, queue)
	var queued []reconcile.Request
	for queue.Len() > 0 {
		req, _ := queue.Get()
		queue.Done(req)
		queued = append(queued, req)
	}
	g.Expect(queued).To(ConsistOf(requestFor(web)),
		"a node that stops matching web reaches web, through its old labels, and nothing else")
}

func TestNodePredicatePassesOnlyWhatTheControllerReads(t *testing.T) {
	ready := func() *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name: "node-1", ResourceVersion: "10",
				Labels: map[string]string{"kubernetes.io/os": "linux", "disk": "ssd"},
			},
			Status: corev1.NodeStatus{
				Conditions: []corev1.NodeCondition{
					{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
						LastHeartbeatTime: metav1.NewTime(time.Unix(1000, 0))},
					{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse,
						LastHeartbeatTime: metav1.NewTime(time.Unix(1000, 0))},
				},
				Allocatable: corev1.ResourceList{},
			},
		}
	}
	tests := []struct {
		name   string
		change func(*corev1.Node)
		passes bool
	}{
		{"only the resourceVersion moved", func(n *corev1.Node) { n.ResourceVersion = "11" }, false},
		{"a heartbeat", func(n *corev1.Node) {
			for i := range n.Status.Conditions {
				n.Status.Conditions[i].LastHeartbeatTime = metav1.NewTime(time.Unix(1010, 0))
			}
		}, false},
		{"an annotation changed", func(n *corev1.Node) { n.Annotations = map[string]string{"touched": "1"} }, false},
		{"the kubelet reported its images", func(n *corev1.Node) {
			n.Status.Images = []corev1.ContainerImage{{Names: []string{pauseImage}}}
		}, false},
		{"memory pressure came", func(n *corev1.Node) { n.Status.Conditions[1].Status = corev1.ConditionTrue }, false},
		{"a label was added", func(n *corev1.Node) { n.Labels["zone"] = "a" }, true},
		{"a label changed", func(n *corev1.Node) { n.Labels["disk"] = "hdd" }, true},
		{"a label was removed", func(n *corev1.Node) { delete(n.Labels, "disk") }, true},
		{"the node was cordoned", func(n *corev1.Node) { n.Spec.Unschedulable = true }, true},
		{"a taint was added", func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "example.com/maintenance", Effect: corev1.TaintEffectNoExecute}}
		}, true},
		{"Ready went Unknown", func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionUnknown }, true},
		{"the Ready condition went away", func(n *corev1.Node) { n.Status.Conditions = n.Status.Conditions[1:] }, true},
	}
	p := nodeChangedPredicate()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			oldNode, newNode := ready(), ready()
			newNode.Labels = maps.Clone(oldNode.Labels)
			tt.change(newNode)
			g.Expect(p.Update(event.UpdateEvent{ObjectOld: oldNode, ObjectNew: newNode})).To(Equal(tt.passes),
				"should the update %q start a pass?", tt.name)
		})
	}

	t.Run("creates and deletes always pass", func(t *testing.T) {
		g := NewWithT(t)
		g.Expect(p.Create(event.CreateEvent{Object: ready()})).To(BeTrue())
		g.Expect(p.Delete(event.DeleteEvent{Object: ready()})).To(BeTrue())
	})
}

func TestDaemonPodPredicateSeesAnImageChange(t *testing.T) {
	g := NewWithT(t)
	oldPod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}}}
	newPod := oldPod.DeepCopy()
	newPod.Spec.Containers[0].Image = newPauseImage
	g.Expect(daemonPodChangedPredicate().Update(event.UpdateEvent{ObjectOld: oldPod, ObjectNew: newPod})).To(BeTrue(),
		"a pod whose image changed in place must be replaced")
	newPod = oldPod.DeepCopy()
	newPod.ResourceVersion = "2"
	g.Expect(daemonPodChangedPredicate().Update(event.UpdateEvent{ObjectOld: oldPod, ObjectNew: newPod})).To(BeFalse())
}
