package controller

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/06-nodepool-finalizer/api/nodes/v1"
)

// The manager runs with the ClusterRole that controller-gen writes from the RBAC markers
// (config/rbac/role.yaml). Nodes, NodePools and RuntimeClasses are cluster-scoped, so
// the role is bound cluster-wide. Every read and write of a pass must be allowed by it.
func TestTheManagersRoleAllowsANodePoolPass(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := uniqueName("rbac")

	file, err := os.Open(filepath.Join("..", "..", "config", "rbac", "role.yaml"))
	g.Expect(err).NotTo(HaveOccurred(), "the role controller-gen writes from the RBAC markers")
	defer file.Close()
	var role rbacv1.ClusterRole
	decoder := yaml.NewYAMLOrJSONDecoder(file, 4096)
	g.Expect(decoder.Decode(&role)).To(Succeed(), "config/rbac/role.yaml should start with the ClusterRole")
	role.ObjectMeta = metav1.ObjectMeta{Name: "nodepool-manager-" + name}
	g.Expect(env.Client().Create(ctx, &role)).To(Succeed(), "creating the manager's ClusterRole")
	t.Cleanup(func() { _ = env.Client().Delete(ctx, &role) })
	user := "nodepool-manager-" + name
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	g.Expect(env.Client().Create(ctx, binding)).To(Succeed(), "binding the manager's ClusterRole")
	t.Cleanup(func() { _ = env.Client().Delete(ctx, binding) })

	cfg := rest.CopyConfig(env.Config())
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	asManager, err := client.New(cfg, client.Options{Scheme: env.Scheme()})
	g.Expect(err).NotTo(HaveOccurred(), "a client that acts as the manager")
	r := newReconciler(asManager)
	r.APIReader = asManager // the pass reads the API server as the manager too
	pool, member := createUnmanagedPoolWithMember(t, g, name, sampleLabels, sampleTaint)
	// The API server's authorizer learns of new roles through its own cache.
	g.Eventually(func(g Gomega) {
		g.Expect(asManager.Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{})).To(Succeed(),
			"the manager's role should let it get the pool")
	}).Should(Succeed())

	for pass := range 2 {
		runPass(g, r, pool, "pass %d as the manager's role; add the RBAC marker it lacks", pass+1)
		if pass == 0 {
			// The next pass changes the RuntimeClass.
			setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) { spec.Handler = "kata" })
		}
	}
	g.Expect(latestNode(g, member).Spec.Taints).To(ContainElement(sampleTaint), "the passes as the manager's role patch the node")
	var nodes corev1.NodeList
	g.Expect(asManager.List(ctx, &nodes)).To(Succeed(), "the manager lists and watches nodes")

	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed(), "deleting the pool")
	runPass(g, r, pool, "the deletion pass as the manager's role; add the RBAC verb it lacks")
	err = env.Client().Get(ctx, client.ObjectKeyFromObject(pool), &nodesv1.NodePool{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the deletion pass should remove the finalizer: got %v", err)
}
