package controller

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The manager runs with the ClusterRole that controller-gen writes from the RBAC markers
// (config/rbac/role.yaml), not as the administrator the other tests use, and bound
// cluster-wide as a deployed manager is: nodes belong to no namespace, and the map
// function lists MyDaemonSets and pods of every namespace. Every request of the manager
// must be allowed by that role: the cache's lists and watches, and every read and write
// of a pass that creates a pod (which points at its MyDaemonSet with blockOwnerDeletion,
// so the API server asks for mydaemonsets/finalizers), patches the status and deletes
// the pod of a node that stopped matching.
func TestTheManagersRoleAllowsAWholeMyDaemonSetPass(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	asManager := env.AsManager(t, filepath.Join("..", "..", "config", "rbac", "role.yaml"), &appsv1.MyDaemonSetList{}, &corev1.PodList{}, &corev1.NodeList{})

	r := &MyDaemonSetReconciler{Client: asManager, Scheme: env.Scheme(), APIReader: asManager}
	node := createNode(g, ns, "a", true, map[string]string{"role": "agent"})
	mds := create(g, unmanaged(newMyDaemonSet(ns, "rbac", map[string]string{"role": "agent"})))
	passes := func(what string) {
		for pass := range 2 {
			_, err := r.Reconcile(ctx, requestFor(mds))
			g.ExpectWithOffset(1, testenv.ErrorText(err)).To(BeEmpty(),
				"pass %d %s as the manager's role; add the RBAC marker it lacks", pass+1, what)
		}
	}
	passes("creating a pod")
	g.Expect(daemonPodsOf(g, mds)).To(HaveLen(1), "pods once node %s matches", node.Name)
	g.Expect(latestMyDaemonSet(g, mds).Status.CurrentNumberScheduled).To(BeEquivalentTo(1), "status.currentNumberScheduled")
	g.Expect(r.mydaemonsetsForNode(ctx, node)).To(ConsistOf(requestFor(mds)),
		"the map function as the manager's role (it logs what it was refused)")

	patchNode(g, node, func(n *corev1.Node) { n.Labels["role"] = "database" })
	passes("deleting the pod of a node that stopped matching")
	g.Expect(daemonPodsOf(g, mds)).To(BeEmpty(), "pods once node %s no longer matches", node.Name)
}
