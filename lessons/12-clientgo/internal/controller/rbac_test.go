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
// (config/rbac/role.yaml), not as the administrator the other tests use. Every request
// of the controller, the informers' lists and watches included, must be allowed by it.
func TestTheManagersRoleAllowsAWholePass(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)

	file, err := os.Open(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	defer file.Close()
	var role rbacv1.ClusterRole
	g.Expect(yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&role)).To(Succeed())
	role.ObjectMeta = metav1.ObjectMeta{Name: "imoocpod-manager-" + ns}
	g.Expect(env.Client.Create(ctx, &role)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(ctx, &role) })
	const user = "imoocpod-manager"
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "imoocpod-manager"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	g.Expect(env.Client.Create(ctx, binding)).To(Succeed())

	asManager := rest.CopyConfig(env.Config)
	asManager.Impersonate = rest.ImpersonationConfig{UserName: user}
	// The API server's authorizer learns of new roles through its own cache.
	probe, err := client.New(asManager, client.Options{Scheme: env.Client.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	ip := unmanaged(newImoocPod(ns, "rbac", 2))
	g.Expect(env.Client.Create(ctx, ip)).To(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(probe.Get(ctx, client.ObjectKeyFromObject(ip), ip)).To(Succeed())
	}).Should(Succeed())

	// The role binding is the namespace's: so are the informers.
	c := newTestController(t, asManager, testControllerOptions{namespace: ns, startPods: true})
	g.Expect(errorText(pass(g, c, ip, 0))).To(BeEmpty(), "the first pass as the manager's role")
	g.Expect(errorText(pass(g, c, ip, 2))).To(BeEmpty(), "the second pass as the manager's role")
	g.Expect(latest(g, ip).Status.Replicas).To(BeEquivalentTo(2), "status.replicas")
}
