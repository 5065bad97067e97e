package testenv

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// AsRole returns a config that acts as a user who holds nothing but the ClusterRole in
// rolePath (config/rbac/role.yaml, as controller-gen writes it from the RBAC markers):
// bound in namespace, or cluster-wide when namespace is empty, as a deployed manager's
// is. It returns once the API server's authorizer, which learns of new roles through
// its own cache, grants the role's first rule.
func (e *Env) AsRole(t testing.TB, rolePath, namespace string) *rest.Config {
	t.Helper()
	g := gomega.NewWithT(t)
	role := &rbacv1.ClusterRole{}
	g.Expect(ReadManifest(rolePath, role)).To(gomega.Succeed())
	g.Expect(role.Rules).NotTo(gomega.BeEmpty(), "the rules of %s", rolePath)
	role.ObjectMeta = metav1.ObjectMeta{GenerateName: "manager-role-"}
	first := role.Rules[0]
	resource, subresource, _ := strings.Cut(first.Resources[0], "/")
	user := e.bind(t, role, namespace, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind},
		authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: first.Verbs[0], Group: first.APIGroups[0],
			Resource: resource, Subresource: subresource,
		}})

	cfg := rest.CopyConfig(e.Config())
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	return cfg
}

// Watch starts a watch of list as cfg and stops it at once. A manager's cache lists and
// then watches every kind it holds; a role that allows list but not watch lets a test
// that reads through a direct client pass and leaves a deployed manager's cache empty.
func (e *Env) Watch(cfg *rest.Config, list client.ObjectList, opts ...client.ListOption) error {
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: e.Client().Scheme()})
	if err != nil {
		return err
	}
	w, err := c.Watch(e.Context(), list, opts...)
	if err != nil {
		return fmt.Errorf("watching %T: %w", list, err)
	}
	w.Stop()
	return nil
}

// bind creates role (a ClusterRole with a GenerateName) and binds it to subject: in
// namespace, or cluster-wide when namespace is empty; both go when the test ends. A
// subject without a name is a user named after the role. It returns the subject's user
// name once the API server's authorizer, which learns of new bindings through its own
// cache, grants it access (a SubjectAccessReview of the user).
func (e *Env) bind(t testing.TB, role *rbacv1.ClusterRole, namespace string, subject rbacv1.Subject, access authorizationv1.SubjectAccessReviewSpec) string {
	t.Helper()
	g := gomega.NewWithT(t)
	ctx := e.Context()
	g.Expect(e.Client().Create(ctx, role)).To(gomega.Succeed())
	t.Cleanup(func() { _ = e.Client().Delete(context.Background(), role) })
	if subject.Name == "" {
		subject.Name = "user-" + role.Name
	}
	user := subject.Name
	if subject.Kind == rbacv1.ServiceAccountKind {
		user = "system:serviceaccount:" + subject.Namespace + ":" + subject.Name
	}
	ref := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name}
	subjects := []rbacv1.Subject{subject}
	var binding client.Object = &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: role.Name}, RoleRef: ref, Subjects: subjects,
	}
	if namespace == "" {
		binding = &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role.Name}, RoleRef: ref, Subjects: subjects}
	}
	g.Expect(e.Client().Create(ctx, binding)).To(gomega.Succeed())
	t.Cleanup(func() { _ = e.Client().Delete(context.Background(), binding) })

	access.User = user
	g.Eventually(func(g gomega.Gomega) {
		review := &authorizationv1.SubjectAccessReview{Spec: access}
		g.Expect(e.Client().Create(ctx, review)).To(gomega.Succeed())
		g.Expect(review.Status.Allowed).To(gomega.BeTrue(), "the authorizer knows the new binding")
	}).Should(gomega.Succeed())
	return user
}

// ReadManifest reads the one object of the YAML file path (a file of config/) into obj.
func ReadManifest(path string, obj client.Object) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	if err := yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(obj); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}

// AsManager returns a client that acts as the ClusterRole of rolePath, bound
// cluster-wide (AsRole), once it has checked that the role lets a manager's cache watch
// each of lists: a pass through a direct client would not show a watch the role lacks.
func (e *Env) AsManager(t testing.TB, rolePath string, lists ...client.ObjectList) client.Client {
	t.Helper()
	g := gomega.NewWithT(t)
	cfg := e.AsRole(t, rolePath, "")
	for _, list := range lists {
		g.Expect(ErrorText(e.Watch(cfg, list))).To(gomega.BeEmpty(),
			"the manager's cache watches %T; add the RBAC marker it lacks", list)
	}
	c, err := client.New(cfg, client.Options{Scheme: e.Client().Scheme()})
	g.Expect(err).NotTo(gomega.HaveOccurred())
	return c
}
