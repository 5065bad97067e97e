package controller

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The manager runs with the ClusterRole that controller-gen writes from the RBAC markers
// (config/rbac/role.yaml), not as the administrator the other tests use, and bound
// cluster-wide as a deployed manager is: nodes belong to no namespace, and the map
// function lists MyDaemonSets and pods of every namespace. Every read and write of a
// pass, the status patch included, must be allowed by that role.
func TestTheManagersRoleAllowsAWholeMyDaemonSetPass(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)

	role := managerRole(g)
	role.ObjectMeta = metav1.ObjectMeta{Name: "mydaemonset-manager-" + ns}
	g.Expect(env.Client.Create(ctx, role)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, role) })
	user := "mydaemonset-manager-" + ns
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	g.Expect(env.Client.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, binding) })

	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	asManager, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	r := &MyDaemonSetReconciler{Client: asManager, Scheme: env.Client.Scheme(), APIReader: asManager}
	node := createNode(g, ns, "a", true, nil)
	mds := unmanaged(newMyDaemonSet(ns, "rbac", nil))
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(asManager.Get(ctx, client.ObjectKeyFromObject(mds), mds)).To(Succeed())
	}).Should(Succeed())

	for pass := range 2 {
		_, err := r.Reconcile(ctx, requestFor(mds))
		g.Expect(err).NotTo(HaveOccurred(), "pass %d as the manager's role; add the RBAC marker it lacks", pass+1)
	}
	g.Expect(latestMyDaemonSet(g, mds).Status.CurrentNumberScheduled).To(BeEquivalentTo(1), "status.currentNumberScheduled")
	g.Expect(r.mydaemonsetsForNode(ctx, node)).To(ConsistOf(requestFor(mds)),
		"the map function as the manager's role (it logs what it was refused)")
}

// managerRole reads the ClusterRole controller-gen writes from the RBAC markers.
func managerRole(g Gomega) *rbacv1.ClusterRole {
	file, err := os.Open(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
	defer file.Close()
	var role rbacv1.ClusterRole
	g.ExpectWithOffset(1, yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&role)).To(Succeed())
	return &role
}
