//go:build capstone

package capstone

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// The spec's kind, which the learner's module must serve.
var copyKind = schema.GroupVersionKind{Group: "copies.workshop.dev", Version: "v1", Kind: "ConfigMapCopy"}

// wait is how long a test waits for the operator to bring the cluster in line.
const wait = 20 * time.Second

var ctx = context.Background()

// eventually calls check until it returns nil, and fails the test with what (which
// names the requirement) and check's last error when it has not after wait.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s\n  after %s: %v", what, wait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// consistently fails the test with what when check returns an error within d.
func consistently(t *testing.T, what string, d time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if err := check(); err != nil {
			t.Fatalf("%s\n  %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// must fails the test with what when err is not nil: a step of the test's own set-up.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func namespace(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	must(t, "create namespace "+name, k.Create(ctx, ns))
}

func setNamespaceLabels(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	var ns corev1.Namespace
	must(t, "read namespace "+name, k.Get(ctx, types.NamespacedName{Name: name}, &ns))
	ns.Labels = labels
	must(t, "label namespace "+name, k.Update(ctx, &ns))
}

func configMap(t *testing.T, ns, name string, data map[string]string, binary map[string][]byte) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data, BinaryData: binary}
	must(t, fmt.Sprintf("create ConfigMap %s/%s", ns, name), k.Create(ctx, cm))
	return cm
}

func getConfigMap(ns, name string) (*corev1.ConfigMap, error) {
	var cm corev1.ConfigMap
	err := k.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &cm)
	return &cm, err
}

// copySpec is a ConfigMapCopy's spec: its source, the labels its selector matches and
// the copies' name ("" leaves it out).
func copyObject(name, srcNamespace, srcName string, matchLabels map[string]string, target string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(copyKind)
	u.SetName(name)
	labels := map[string]any{}
	for k, v := range matchLabels {
		labels[k] = v
	}
	spec := map[string]any{
		"source":            map[string]any{"namespace": srcNamespace, "name": srcName},
		"namespaceSelector": map[string]any{"matchLabels": labels},
	}
	if target != "" {
		spec["targetName"] = target
	}
	u.Object["spec"] = spec
	return u
}

func createCopy(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	must(t, "create ConfigMapCopy "+u.GetName(), k.Create(ctx, u))
}

func getCopy(name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(copyKind)
	err := k.Get(ctx, types.NamespacedName{Name: name}, u)
	return u, err
}

// condition is one status condition of a ConfigMapCopy, as the API server holds it.
type condition struct {
	Status, Reason, Message string
	ObservedGeneration      int64
}

func conditionOf(u *unstructured.Unstructured, conditionType string) (condition, bool) {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, item := range list {
		c, _ := item.(map[string]any)
		if c["type"] != conditionType {
			continue
		}
		var out condition
		out.Status, _ = c["status"].(string)
		out.Reason, _ = c["reason"].(string)
		out.Message, _ = c["message"].(string)
		out.ObservedGeneration, _, _ = unstructured.NestedInt64(c, "observedGeneration")
		return out, true
	}
	return condition{}, false
}

// hasCondition checks ConfigMapCopy name's condition of type: its status and that its
// message holds each of words.
func hasCondition(name, conditionType, status string, words ...string) error {
	u, err := getCopy(name)
	if err != nil {
		return err
	}
	c, ok := conditionOf(u, conditionType)
	if !ok {
		return fmt.Errorf("status.conditions has no %s condition", conditionType)
	}
	if c.Status != status {
		return fmt.Errorf("condition %s is %s (%s: %q), want %s", conditionType, c.Status, c.Reason, c.Message, status)
	}
	for _, w := range words {
		if !strings.Contains(c.Message, w) {
			return fmt.Errorf("condition %s's message %q does not name %s", conditionType, c.Message, w)
		}
	}
	return nil
}

// isCopy checks that ns holds ConfigMap name with data and binary, controlled by the
// ConfigMapCopy owner.
func isCopy(ns, name string, data map[string]string, binary map[string][]byte, owner *unstructured.Unstructured) error {
	cm, err := getConfigMap(ns, name)
	if err != nil {
		return err
	}
	if !maps.Equal(cm.Data, data) {
		return fmt.Errorf("ConfigMap %s/%s has data %v, want the source's %v", ns, name, cm.Data, data)
	}
	if len(cm.BinaryData) != len(binary) {
		return fmt.Errorf("ConfigMap %s/%s has %d binaryData keys, want the source's %d", ns, name, len(cm.BinaryData), len(binary))
	}
	for key, v := range binary {
		if string(cm.BinaryData[key]) != string(v) {
			return fmt.Errorf("ConfigMap %s/%s has binaryData %s %q, want the source's %q", ns, name, key, cm.BinaryData[key], v)
		}
	}
	ref := metav1.GetControllerOf(cm)
	if ref == nil || ref.UID != owner.GetUID() || ref.Kind != copyKind.Kind || ref.APIVersion != copyKind.GroupVersion().String() {
		return fmt.Errorf("ConfigMap %s/%s has no controller owner reference to ConfigMapCopy %s (uid %s): %+v", ns, name, owner.GetName(), owner.GetUID(), cm.OwnerReferences)
	}
	return nil
}

// isGone checks that ns holds no ConfigMap name.
func isGone(ns, name string) error {
	_, err := getConfigMap(ns, name)
	switch {
	case err == nil:
		return fmt.Errorf("ConfigMap %s/%s still exists", ns, name)
	case apierrors.IsNotFound(err):
		return nil
	default:
		return err
	}
}

// created returns ConfigMapCopy name as the API server holds it, its UID set.
func created(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := getCopy(name)
	must(t, "read ConfigMapCopy "+name, err)
	return u
}

func getNamespace(name string) (*corev1.Namespace, error) {
	var ns corev1.Namespace
	err := k.Get(ctx, types.NamespacedName{Name: name}, &ns)
	return &ns, err
}

// updateCopy changes ConfigMapCopy name with change and writes it, again on a conflict:
// the operator writes the object too (its finalizer, its status).
func updateCopy(name string, change func(u *unstructured.Unstructured)) error {
	for {
		u, err := getCopy(name)
		if err != nil {
			return err
		}
		change(u)
		if err := k.Update(ctx, u); !apierrors.IsConflict(err) {
			return err
		}
	}
}

// setSelector is a change for updateCopy: the selector matches labels.
func setSelector(labels map[string]any) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		u.Object["spec"].(map[string]any)["namespaceSelector"] = map[string]any{"matchLabels": labels}
	}
}
