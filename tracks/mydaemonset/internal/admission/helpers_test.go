package admission

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/tracks/mydaemonset/api/apps/v1"
)

const (
	pauseImage = "registry.k8s.io/pause:3.10"
	// The manager's service account as config/default names it: the one user the
	// reserved-label policy lets set the label.
	managerUser = "system:serviceaccount:mydaemonset-system:mydaemonset-controller-manager"
	// enforcedLabel opts a namespace into the reserved-label policy.
	enforcedLabel = "apps.workshop.dev/reserved-labels"
)

// newNamespace creates a namespace of its own for the test, with labels, and deletes it
// when the test ends.
func newNamespace(t *testing.T, labels map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "admission-", Labels: labels}}
	if err := env.Client().Create(env.Context(), ns); err != nil {
		t.Fatalf("creating a namespace: %v", err)
	}
	t.Cleanup(func() { _ = env.Client().Delete(env.Context(), ns) })
	return ns.Name
}

func newMyDaemonSet(ns, name, image string) *appsv1.MyDaemonSet {
	return &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       appsv1.MyDaemonSetSpec{Image: image},
	}
}

// stored reads obj straight from the API server into a new object: what it stored.
func stored[T client.Object](g Gomega, obj T, into T) T {
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(obj), into)).To(Succeed())
	return into
}

// applyManifests creates or replaces every object of the YAML files of config/policies
// named, in order, as an administrator would with kubectl apply: the learner's files,
// read as they are.
func applyManifests(t *testing.T, files ...string) {
	t.Helper()
	for _, file := range files {
		path := filepath.Join("..", "..", "config", "policies", file)
		objs, err := readManifests(path)
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		for _, obj := range objs {
			if err := createOrReplace(obj); err != nil {
				t.Fatalf("applying %s %s of %s: %v", obj.GetKind(), obj.GetName(), path, err)
			}
		}
	}
}

// readManifests returns the objects of a YAML file of one or more documents.
func readManifests(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj map[string]any
		if err := decoder.Decode(&obj); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, err
		}
		if len(obj) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
}

// createOrReplace creates obj, or replaces what stands under its name, creating its
// namespace first when it has one that does not exist yet.
func createOrReplace(obj *unstructured.Unstructured) error {
	ctx, c := env.Context(), env.Client()
	if ns := obj.GetNamespace(); ns != "" {
		err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	err := c.Create(ctx, obj.DeepCopy())
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	var current unstructured.Unstructured
	current.SetGroupVersionKind(obj.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), &current); err != nil {
		return err
	}
	replacement := obj.DeepCopy()
	replacement.SetResourceVersion(current.GetResourceVersion())
	return c.Update(ctx, replacement)
}

// clientAs returns a client that acts as user, a member of groups, who may do anything
// in the cluster: the policies, not RBAC, decide what these tests see.
func clientAs(t *testing.T, user string, groups ...string) client.Client {
	t.Helper()
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "admission-test-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	if err := env.Client().Create(env.Context(), binding); err != nil {
		t.Fatalf("binding cluster-admin to %s: %v", user, err)
	}
	t.Cleanup(func() { _ = env.Client().Delete(env.Context(), binding) })
	cfg := rest.CopyConfig(env.Config())
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: append(groups, "system:authenticated")}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme()})
	if err != nil {
		t.Fatalf("a client as %s: %v", user, err)
	}
	return c
}

func labelledPod(ns, name string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: pauseImage}}},
	}
}

func describe(err error) string {
	if err == nil {
		return "admitted"
	}
	return fmt.Sprintf("refused: %v", err)
}
