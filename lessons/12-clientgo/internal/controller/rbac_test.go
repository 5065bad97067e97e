package controller

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The manager runs with the ClusterRole that controller-gen writes from the RBAC markers
// (config/rbac/role.yaml), not as the administrator the other tests use. Every request
// of the controller must be allowed by it: the informers' lists and watches, and the
// passes that create pods (which point at their ImoocPod with blockOwnerDeletion, so the
// API server asks for imoocpods/finalizers), patch the status and delete a pod.
func TestTheManagersRoleAllowsAWholePass(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	// The role binding is the namespace's: so are the informers.
	asManager := env.AsRole(t, filepath.Join("..", "..", "config", "rbac", "role.yaml"), ns)
	ip := unmanaged(newImoocPod(ns, "rbac", 2))
	g.Expect(env.Client().Create(ctx, ip)).To(Succeed())

	c := newTestController(t, asManager, testControllerOptions{namespace: ns, startPods: true})
	g.Expect(testenv.ErrorText(pass(g, c, ip, 0))).To(BeEmpty(), "the first pass as the manager's role, creating 2 pods")
	g.Expect(testenv.ErrorText(pass(g, c, ip, 2))).To(BeEmpty(), "the second pass as the manager's role")
	g.Expect(latest(g, ip).Status.Replicas).To(BeEquivalentTo(2), "status.replicas")

	scaleTo(g, ip, 1)
	g.Expect(testenv.ErrorText(pass(g, c, ip, 2))).To(BeEmpty(), "a pass as the manager's role that deletes a pod")
	g.Expect(podsOf(g, ip)).To(HaveLen(1), "pods after scaling down")
}
