//stage:2
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
// (config/rbac/role.yaml), not as the administrator the other tests use. Every read and
// write of a pass, the status patch included, must be allowed by that role.
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

	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	asManager, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	r := &ImoocPodReconciler{Client: asManager, Scheme: env.Client.Scheme()}
	ip := unmanaged(newImoocPod(ns, "rbac", 2))
	g.Expect(env.Client.Create(ctx, ip)).To(Succeed())
	// The API server's authorizer learns of new roles through its own cache.
	g.Eventually(func(g Gomega) {
		g.Expect(asManager.Get(ctx, client.ObjectKeyFromObject(ip), ip)).To(Succeed())
	}).Should(Succeed())

	for pass := range 2 {
		_, err := r.Reconcile(ctx, requestFor(ip))
		g.Expect(errorText(err)).To(BeEmpty(), "pass %d as the manager's role; add the RBAC marker it lacks", pass+1)
	}
	g.Expect(latest(g, ip).Status.Replicas).To(BeEquivalentTo(2), "status.replicas")
}

//stage:end
