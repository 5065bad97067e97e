// Package config holds the tests of the manifests that deploy the operator: what
// `kustomize build config/default` writes, applied to a real API server, and the image
// the Dockerfile builds.
package config

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{Scheme: testenv.Scheme()}, &env))
}

// build runs kustomize build on a folder of config/ and returns the objects it writes.
func build(t *testing.T, folder string) []*unstructured.Unstructured {
	t.Helper()
	assets, err := testenv.BinaryAssetsDirectory()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(filepath.Join(assets, "kustomize"), "build", folder)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kustomize build config/%s: %v\n%s", folder, err, stderr.String())
	}
	var objects []*unstructured.Unstructured
	decoder := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := decoder.Decode(&obj.Object); err != nil {
			break
		}
		if len(obj.Object) > 0 {
			objects = append(objects, obj)
		}
	}
	return objects
}

// find returns the only object of kind (and group, when it has one) among objects.
func find(t *testing.T, objects []*unstructured.Unstructured, group, kind string) *unstructured.Unstructured {
	t.Helper()
	var found []*unstructured.Unstructured
	for _, obj := range objects {
		gvk := obj.GroupVersionKind()
		if gvk.Group == group && gvk.Kind == kind {
			found = append(found, obj)
		}
	}
	if len(found) != 1 {
		t.Fatalf("config/default should have one %s, has %d", kind, len(found))
	}
	return found[0]
}

// into converts an unstructured object into a typed one.
func into[T any](t *testing.T, obj *unstructured.Unstructured, typed *T) *T {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, typed); err != nil {
		t.Fatal(err)
	}
	return typed
}

// Every object config/default writes is accepted by a real API server, server-side
// applied as kubectl apply --server-side does: its fields exist in the schema and its
// values are valid. cert-manager's kinds are left out: this API server does not serve
// them (docs/lesson-09.md says how the embedded cluster replaces them).
func TestConfigDefaultAppliesToAnAPIServer(t *testing.T) {
	g := NewWithT(t)
	objects := build(t, "default")
	// The namespace first, as kubectl does.
	slices.SortStableFunc(objects, func(a, b *unstructured.Unstructured) int {
		return boolInt(b.GetKind() == "Namespace") - boolInt(a.GetKind() == "Namespace")
	})
	applied := 0
	for _, obj := range objects {
		if obj.GroupVersionKind().Group == "cert-manager.io" {
			continue
		}
		err := env.Client().Apply(env.Context(), client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner("config-test"), client.ForceOwnership)
		g.Expect(err).NotTo(HaveOccurred(), "applying %s %s", obj.GetKind(), obj.GetName())
		applied++
	}
	g.Expect(applied).To(BeNumerically(">=", 10))
}

// make undeploy-9 deletes what config/default writes: it must not hold the CRD, whose
// deletion deletes every NodePool.
func TestConfigDefaultLeavesTheCRDOut(t *testing.T) {
	for _, obj := range build(t, "default") {
		if obj.GetKind() == "CustomResourceDefinition" {
			t.Errorf("config/default has the CRD %s: make undeploy-9 would delete it and every NodePool; install config/crd on its own", obj.GetName())
		}
	}
}

// Two replicas, of which one reconciles at a time, as the service account the RBAC
// binds, under the namespace and prefix of config/default.
func TestTheManagerRunsTwoLeaderElectedReplicas(t *testing.T) {
	g := NewWithT(t)
	objects := build(t, "default")
	deployment := into(t, find(t, objects, "apps", "Deployment"), &appsv1.Deployment{})
	g.Expect(deployment.Namespace).To(Equal("nodepool-system"))
	g.Expect(deployment.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)), "the Deployment should run two replicas")
	manager := deployment.Spec.Template.Spec.Containers[0]
	g.Expect(manager.Args).To(ContainElement("--leader-elect"), "two replicas without --leader-elect would both reconcile")
	g.Expect(manager.Image).To(Equal("nodepool-manager:dev"), "the image kind load puts on the nodes, never :latest")

	account := deployment.Spec.Template.Spec.ServiceAccountName
	g.Expect(account).To(Equal("nodepool-controller-manager"))
	for _, obj := range objects {
		if obj.GetKind() != "RoleBinding" && obj.GetKind() != "ClusterRoleBinding" {
			continue
		}
		binding := into(t, obj, &rbacv1.ClusterRoleBinding{})
		g.Expect(binding.Subjects).To(ConsistOf(rbacv1.Subject{Kind: "ServiceAccount", Name: account, Namespace: "nodepool-system"}),
			"%s %s should bind the manager's service account", obj.GetKind(), obj.GetName())
	}
}

// A pool's NoExecute taint, whatever its key, must not evict the manager from the pool's
// members: without it nobody answers the webhooks, and they refuse every NodePool
// change, the fix included. A node that stops answering still sends it away, as the API
// server's default tolerations do. And a drain keeps one replica running.
func TestTheManagerStaysThroughItsPoolsTaintsAndDrains(t *testing.T) {
	g := NewWithT(t)
	objects := build(t, "default")
	deployment := into(t, find(t, objects, "apps", "Deployment"), &appsv1.Deployment{})
	tolerations := deployment.Spec.Template.Spec.Tolerations
	// first returns the toleration that counts for taint: the first that matches it (the
	// operators Exists and Equal only).
	first := func(taint corev1.Taint) *corev1.Toleration {
		for i, tol := range tolerations {
			if (tol.Key == "" || tol.Key == taint.Key) && (tol.Effect == "" || tol.Effect == taint.Effect) &&
				(tol.Operator == corev1.TolerationOpExists || tol.Value == taint.Value) {
				return &tolerations[i]
			}
		}
		return nil
	}
	for _, key := range []string{"node-pool.workshop.dev", "dedicated", "example.com/gpu"} {
		toleration := first(corev1.Taint{Key: key, Value: "x", Effect: corev1.TaintEffectNoExecute})
		g.Expect(toleration).NotTo(BeNil(), "the manager should tolerate a pool's NoExecute taint %s", key)
		g.Expect(toleration.TolerationSeconds).To(BeNil(), "the manager should tolerate a pool's NoExecute taint %s for ever", key)
	}
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		toleration := first(corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute})
		g.Expect(toleration).NotTo(BeNil(), "the taint %s", key)
		g.Expect(toleration.TolerationSeconds).To(HaveValue(BeEquivalentTo(300)),
			"a node that stops answering (%s) should send the manager away after 300 seconds, not keep it for ever", key)
	}

	budget := into(t, find(t, objects, "policy", "PodDisruptionBudget"), &policyv1.PodDisruptionBudget{})
	g.Expect(budget.Namespace).To(Equal(deployment.Namespace))
	g.Expect(budget.Spec.MinAvailable).To(HaveValue(Equal(intstr.FromInt32(1))), "a drain should keep one replica running")
	g.Expect(budget.Spec.Selector.MatchLabels).To(Equal(deployment.Spec.Selector.MatchLabels),
		"the PodDisruptionBudget should select the manager's pods")
}

// A cluster-scoped NodePool's Events go to the namespace default: the Role that grants
// them, and its binding, stay there, where the namespace of config/default would move
// them (config/default/events_namespace.yaml).
func TestTheEventsRoleIsBoundInTheNamespaceDefault(t *testing.T) {
	g := NewWithT(t)
	var roles, bindings []string
	for _, obj := range build(t, "default") {
		if obj.GetNamespace() != "default" {
			continue
		}
		switch obj.GetKind() {
		case "Role":
			role := into(t, obj, &rbacv1.Role{})
			g.Expect(role.Rules).To(ConsistOf(HaveField("APIGroups", ConsistOf("events.k8s.io"))),
				"the Role of the namespace default should grant the events only")
			roles = append(roles, role.Name)
		case "RoleBinding":
			binding := into(t, obj, &rbacv1.RoleBinding{})
			g.Expect(binding.RoleRef.Kind).To(Equal("Role"))
			bindings = append(bindings, binding.RoleRef.Name)
		}
	}
	g.Expect(roles).To(HaveLen(1), "config/default should put one Role in the namespace default, for the events")
	g.Expect(bindings).To(ConsistOf(roles[0]), "config/default should bind the events Role in the namespace default")
}

// The patches of config/default: the webhook server's port and certificate, and the
// secure metrics endpoint where its Service sends scrapers.
func TestThePatchesGiveTheManagerItsWebhookAndMetricsPorts(t *testing.T) {
	g := NewWithT(t)
	objects := build(t, "default")
	deployment := into(t, find(t, objects, "apps", "Deployment"), &appsv1.Deployment{})
	manager := deployment.Spec.Template.Spec.Containers[0]

	g.Expect(manager.Args).To(ContainElement("--metrics-bind-address=:8443"),
		"manager_metrics_patch.yaml should add --metrics-bind-address=:8443 to the manager's args, and config/default list it under patches")
	var metrics *corev1.Service
	for _, obj := range objects {
		if obj.GetKind() == "Service" && strings.HasSuffix(obj.GetName(), "metrics-service") {
			metrics = into(t, obj, &corev1.Service{})
		}
	}
	g.Expect(metrics).NotTo(BeNil(), "config/default should have the metrics Service")
	g.Expect(metrics.Spec.Ports[0].TargetPort.IntValue()).To(Equal(8443))

	g.Expect(manager.Ports).To(ContainElement(HaveField("ContainerPort", BeEquivalentTo(9443))),
		"manager_webhook_patch.yaml should give the manager the webhook server's port, and config/default list it under patches")
	certificate := find(t, objects, "cert-manager.io", "Certificate")
	secret, _, _ := unstructured.NestedString(certificate.Object, "spec", "secretName")
	g.Expect(deployment.Spec.Template.Spec.Volumes).To(ContainElement(HaveField("Secret.SecretName", secret)),
		"the Deployment should mount the Secret the Certificate writes")
	g.Expect(manager.VolumeMounts).To(ContainElement(HaveField("MountPath", "/tmp/k8s-webhook-server/serving-certs")),
		"the certificate goes where controller-runtime's webhook server reads it")
}

// The API server calls the webhook Service by its DNS name, over TLS: the certificate
// must carry that name, and cert-manager must inject its CA into both configurations.
func TestTheCertificateMatchesTheWebhookService(t *testing.T) {
	g := NewWithT(t)
	objects := build(t, "default")
	var service *corev1.Service
	for _, obj := range objects {
		if obj.GetKind() == "Service" && strings.HasSuffix(obj.GetName(), "webhook-service") {
			service = into(t, obj, &corev1.Service{})
		}
	}
	g.Expect(service).NotTo(BeNil(), "config/default should have the webhook Service")
	certificate := find(t, objects, "cert-manager.io", "Certificate")
	names, _, _ := unstructured.NestedStringSlice(certificate.Object, "spec", "dnsNames")
	g.Expect(names).To(ContainElement(fmt.Sprintf("%s.%s.svc", service.Name, service.Namespace)))
	inject := certificate.GetNamespace() + "/" + certificate.GetName()
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		obj := find(t, objects, "admissionregistration.k8s.io", kind)
		g.Expect(obj.GetAnnotations()).To(HaveKeyWithValue("cert-manager.io/inject-ca-from", inject), kind)
		webhooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
		for _, webhook := range webhooks {
			ref, _, _ := unstructured.NestedStringMap(webhook.(map[string]any), "clientConfig", "service")
			g.Expect(ref).To(HaveKeyWithValue("name", service.Name), kind)
			g.Expect(ref).To(HaveKeyWithValue("namespace", service.Namespace), kind)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
