package v1

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The pod webhook's handler called directly, with the fake client as its reader. That is
// enough here: the handler reads SidecarSets and namespaces and returns a decision, and
// nothing it decides depends on what the fake client leaves out (admission, the status
// subresource, garbage collection). What the API server does with the patch is another
// test's, through envtest.
func TestTheHandlerGivesASidecarOnlyWhereItIsSelected(t *testing.T) {
	//lesson:10.11
	//lesson:stub _ = NewWithT(t) // the package's tests assert with Gomega; yours too
	g := NewWithT(t)
	value := newCase("user")
	set := newSidecarSet("metrics", value, []corev1.Container{sidecar("metrics-agent")})
	set.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}
	namespace := func(name, team string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": team}}}
	}
	injector := newInjector(set, namespace("shop", "web"), namespace("billing", "data"), namespace("kube-system", "web"))
	// A new pod as the API server sends it: its namespace is the request's, not its own.
	pod := func(label string) string {
		return `{"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-", "labels": {"` + caseLabel + `": "` + label + `"}},
		  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}}`
	}

	_, patched := admit(g, injector, "shop", pod(value))
	g.Expect(patched["spec"]).To(HaveKeyWithValue("initContainers", ConsistOf(HaveKeyWithValue("name", "metrics-agent"))),
		"a selected pod in a selected namespace gets the sidecar")

	for _, c := range []struct{ why, ns, label string }{
		{"the pod's labels do not match spec.selector", "shop", value + "-other"},
		{"the namespace's labels do not match spec.namespaceSelector", "billing", value},
		{"kube-system is never given sidecars", "kube-system", value},
	} {
		resp, _ := admit(g, injector, c.ns, pod(c.label))
		g.Expect(resp.Patches).To(BeEmpty(), "no sidecar when %s", c.why)
	}

	everything := newSidecarSet("everything", value, []corev1.Container{sidecar("agent")})
	everything.Spec.Selector = &metav1.LabelSelector{}
	resp, _ := admit(g, newInjector(everything, namespace("shop", "web")), "shop", pod(value))
	g.Expect(resp.Patches).To(BeEmpty(), "an empty spec.selector selects no pod")
	//lesson:end
}
