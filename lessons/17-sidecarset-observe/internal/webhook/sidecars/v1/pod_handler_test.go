package v1

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
)

// The pod webhook's handler called directly, without an API server: the SidecarSets and
// namespaces it reads come from objects.

// newInjector returns a PodSidecarInjector that reads objects, from its cache and from
// the API server alike.
func newInjector(objects ...client.Object) *PodSidecarInjector {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sidecarsv1.AddToScheme(scheme))
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).Build()
	return &PodSidecarInjector{Client: reader, APIReader: reader, Decoder: admission.NewDecoder(scheme),
		ExcludedNamespaces: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace)}
}

// admit calls the handler for the creation of the pod raw (JSON) in namespace, as the API
// server would, and returns its answer and the pod its patch makes of raw.
func admit(g Gomega, injector *PodSidecarInjector, namespace, raw string) (admission.Response, map[string]any) {
	resp := injector.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Namespace: namespace,
		Object:    runtime.RawExtension{Raw: []byte(raw)},
	}})
	g.ExpectWithOffset(1, resp.Allowed).To(BeTrue(), "the webhook refuses no pod: %v", resp.Result)
	patched := []byte(raw)
	if len(resp.Patches) > 0 {
		ops, err := json.Marshal(resp.Patches)
		g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
		patch, err := jsonpatch.DecodePatch(ops)
		g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
		patched, err = patch.Apply(patched)
		g.ExpectWithOffset(1, err).NotTo(HaveOccurred(), "the patch %s should apply to the pod", ops)
	}
	var pod map[string]any
	g.ExpectWithOffset(1, json.Unmarshal(patched, &pod)).To(Succeed())
	return resp, pod
}

// A pod created through an API server newer than the manager has fields the manager's
// k8s.io/api does not know. The patch adds the sidecar, its volume and the record, and
// touches nothing else: not those fields, nor the ones corev1.Pod drops when it encodes a
// pod (hostNetwork: false).
func TestThePatchOnlyAdds(t *testing.T) {
	g := NewWithT(t)
	set := newSidecarSet("logging", "web", []corev1.Container{sidecar("log-shipper", logsMount)}, emptyDir("logs"))
	const pod = `{
	  "apiVersion": "v1", "kind": "Pod",
	  "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}, "futureMetadata": "kept"},
	  "spec": {
	    "hostNetwork": false,
	    "futurePodField": {"enabled": true},
	    "initContainers": [{"name": "migrate", "image": "` + appImage + `", "futureContainerField": 1}],
	    "containers": [{"name": "app", "image": "` + appImage + `", "futureContainerField": 2}],
	    "volumes": [{"name": "data", "emptyDir": {}, "futureVolumeField": 3}]
	  }
	}`
	resp, patched := admit(g, newInjector(set), "shop", pod)
	for _, op := range resp.Patches {
		g.Expect(op.Operation).To(Equal("add"), "the patch should only add, never remove or replace what the pod has: %+v", op)
	}

	spec := patched["spec"].(map[string]any)
	g.Expect(spec).To(HaveKeyWithValue("hostNetwork", false))
	g.Expect(spec).To(HaveKeyWithValue("futurePodField", map[string]any{"enabled": true}))
	g.Expect(patched["metadata"]).To(HaveKeyWithValue("futureMetadata", "kept"))
	initContainers := spec["initContainers"].([]any)
	g.Expect(initContainers).To(HaveLen(2), "the pod's init container, then the sidecar")
	g.Expect(initContainers[0]).To(HaveKeyWithValue("futureContainerField", 1.0))
	g.Expect(initContainers[1]).To(And(HaveKeyWithValue("name", "log-shipper"), HaveKeyWithValue("restartPolicy", "Always")))
	g.Expect(spec["containers"].([]any)[0]).To(HaveKeyWithValue("futureContainerField", 2.0))
	volumes := spec["volumes"].([]any)
	g.Expect(volumes).To(HaveLen(2))
	g.Expect(volumes[0]).To(HaveKeyWithValue("futureVolumeField", 3.0))
	g.Expect(volumes[1]).To(HaveKeyWithValue("name", "logs"))
	g.Expect(patched["metadata"]).To(HaveKeyWithValue("annotations",
		HaveKeyWithValue(sidecars.InjectedAnnotation, sidecars.FormatInjected(map[string]sidecars.Entry{
			"logging": {Revision: sidecars.Revision(&set.Spec), Containers: []string{"log-shipper"}}}))))
}

// A pod with annotations of its own, and without init containers or volumes: the patch
// adds the record next to its annotations, and the lists the pod did not have.
func TestThePatchAddsWhatThePodLacks(t *testing.T) {
	g := NewWithT(t)
	set := newSidecarSet("logging", "web", []corev1.Container{sidecar("log-shipper", logsMount)}, emptyDir("logs"))
	const pod = `{
	  "apiVersion": "v1", "kind": "Pod",
	  "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}, "annotations": {"team": "shop"}},
	  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}
	}`
	_, patched := admit(g, newInjector(set), "shop", pod)
	g.Expect(patched["metadata"]).To(HaveKeyWithValue("annotations", And(HaveKeyWithValue("team", "shop"),
		HaveKey(sidecars.InjectedAnnotation))), "the record goes next to the pod's own annotations")
	spec := patched["spec"].(map[string]any)
	g.Expect(spec["initContainers"]).To(ConsistOf(HaveKeyWithValue("name", "log-shipper")))
	g.Expect(spec["volumes"]).To(ConsistOf(HaveKeyWithValue("name", "logs")))
}

// When the SidecarSets cannot be listed (the cache is stopping, or not allowed to read
// them), the pod is admitted all the same, without sidecars and with a warning that says
// so: refusing it would stop every ReplicaSet, Job and DaemonSet of the cluster from
// creating pods, in every namespace the webhook sees.
func TestAPodIsAdmittedWhenListingSidecarSetsFails(t *testing.T) {
	g := NewWithT(t)
	injector := newInjector(newSidecarSet("logging", "web", []corev1.Container{sidecar("log-shipper")}))
	injector.Client = interceptor.NewClient(injector.Client.(client.WithWatch), interceptor.Funcs{
		List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
			return errors.New("the cache is stopping")
		},
	})
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}},
	  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}}`
	resp := injector.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: admissionv1.Create,
		Namespace: "shop",
		Object:    runtime.RawExtension{Raw: []byte(pod)},
	}})
	var refusal string
	if resp.Result != nil {
		refusal = resp.Result.Message
	}
	g.Expect(resp.Allowed).To(BeTrue(), "when listing SidecarSets fails, the pod should still be admitted, without "+
		"sidecars and with a warning: refusing it (admission.Errored) stops its ReplicaSet or Job from creating it; "+
		"the webhook refused it: %s", refusal)
	g.Expect(resp.Patches).To(BeEmpty(), "a pod admitted without sidecars needs no patch")
	g.Expect(resp.Warnings).NotTo(BeEmpty(),
		"when listing SidecarSets fails, the pod should be admitted with a warning that says it got no sidecars")
}

// A manager deployed to a namespace of another name (--manager-namespace) leaves that
// namespace's pods alone, as it does kube-system's, and injects the others.
func TestTheManagersOwnNamespaceIsLeftAlone(t *testing.T) {
	g := NewWithT(t)
	set := newSidecarSet("logging", "web", []corev1.Container{sidecar("log-shipper")})
	injector := newInjector(set)
	injector.ExcludedNamespaces = sidecars.ExcludedNamespaces("operators")
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}},
	  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}}`
	for _, ns := range []string{"operators", "kube-system"} {
		resp, _ := admit(g, injector, ns, pod)
		g.Expect(resp.Patches).To(BeEmpty(), "a pod in %s should get no sidecar", ns)
	}
	resp, _ := admit(g, injector, "shop", pod)
	g.Expect(resp.Patches).NotTo(BeEmpty(), "a pod in shop should get the sidecar")
}

// The API server sends a new pod without its namespace when its creator left it out, as
// the controllers of the cluster do (kubectl apply and every ReplicaSet create pods in a
// namespace given by the request's path): the namespace is the request's.
func TestThePodsNamespaceIsTheRequests(t *testing.T) {
	g := NewWithT(t)
	set := newSidecarSet("metrics", "web", []corev1.Container{sidecar("metrics-agent")})
	set.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}
	shop := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"team": "web"}}}
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "web-", "labels": {"` + caseLabel + `": "web"}},
	  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}}`
	_, patched := admit(g, newInjector(set, shop), "shop", pod)
	g.Expect(patched["spec"]).To(HaveKeyWithValue("initContainers", ConsistOf(HaveKeyWithValue("name", "metrics-agent"))),
		"the pod should get the sidecar: its namespace is req.Namespace, a new pod's own metadata.namespace may be empty")
}

// A SidecarSet whose selector does not parse (stored before the validating webhook was
// installed) selects nothing; the pod's creator is told, with a warning that names it.
func TestASidecarSetThatCannotSelectIsNamedInAWarning(t *testing.T) {
	g := NewWithT(t)
	broken := newSidecarSet("broken", "web", []corev1.Container{sidecar("log-shipper")})
	broken.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Like"}}
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}},
	  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}}`
	resp, _ := admit(g, newInjector(broken), "shop", pod)
	g.Expect(resp.Patches).To(BeEmpty(), "no SidecarSet selects the pod")
	g.Expect(resp.Warnings).To(ContainElement(ContainSubstring("broken")),
		"when no SidecarSet selects the pod, it should be allowed with selecting's warnings, which name the SidecarSet left out")
}

// A namespace created a moment ago may not be in the manager's cache yet when its first
// pods are admitted: the webhook reads it from the API server then, rather than admit
// them without the sidecars of a SidecarSet with a namespaceSelector.
func TestANamespaceNotYetCachedIsReadFromTheAPIServer(t *testing.T) {
	g := NewWithT(t)
	set := newSidecarSet("metrics", "web", []corev1.Container{sidecar("metrics-agent")})
	set.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}
	shop := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop", Labels: map[string]string{"team": "web"}}}
	injector := newInjector(set, shop)
	injector.Client = newInjector(set).Client // the cache: the SidecarSet, not the namespace yet
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}},
	  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}}`
	resp, patched := admit(g, injector, "shop", pod)
	g.Expect(resp.Warnings).To(BeEmpty())
	g.Expect(patched["spec"]).To(HaveKeyWithValue("initContainers", ConsistOf(HaveKeyWithValue("name", "metrics-agent"))),
		"the pod should get the sidecar: selecting should read a namespace missing from the cache through APIReader")
}

// A pod the handler cannot decode (a request the manager's k8s.io/api cannot read) is
// admitted, without sidecars and with a warning: the pod webhook refuses no pod, and an
// error answer would refuse it whatever the failure policy.
func TestAPodThatDoesNotDecodeIsAdmitted(t *testing.T) {
	g := NewWithT(t)
	injector := newInjector(newSidecarSet("logging", "web", []corev1.Container{sidecar("log-shipper")}))
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}},
	  "spec": {"containers": "not a list"}}`
	resp, _ := admit(g, injector, "shop", pod)
	g.Expect(resp.Patches).To(BeEmpty(), "a pod that does not decode gets no sidecar")
	g.Expect(resp.Warnings).To(ContainElement(ContainSubstring("no sidecars")),
		"a pod that does not decode should be admitted with a warning that says it got no sidecars")
}

// When the pod's namespace cannot be read, only the SidecarSets that need its labels (a
// namespaceSelector) are left out, each named in a warning; the others inject the pod.
func TestANamespaceThatCannotBeReadLeavesOutOnlyTheSidecarSetsThatNeedIt(t *testing.T) {
	g := NewWithT(t)
	logging := newSidecarSet("logging", "web", []corev1.Container{sidecar("log-shipper")})
	metrics := newSidecarSet("metrics", "web", []corev1.Container{sidecar("metrics-agent")})
	metrics.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}
	injector := newInjector(logging, metrics)
	unreadable := interceptor.NewClient(injector.Client.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*corev1.Namespace); ok {
				return errors.New("namespaces is forbidden")
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
	injector.Client, injector.APIReader = unreadable, unreadable
	const pod = `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "labels": {"` + caseLabel + `": "web"}},
	  "spec": {"containers": [{"name": "app", "image": "` + appImage + `"}]}}`
	resp, patched := admit(g, injector, "shop", pod)
	g.Expect(patched["spec"]).To(HaveKeyWithValue("initContainers", ConsistOf(HaveKeyWithValue("name", "log-shipper"))),
		"a SidecarSet without a namespaceSelector needs no namespace: its sidecar should go in when the namespace cannot be read")
	g.Expect(resp.Warnings).To(ContainElement(And(ContainSubstring("metrics"), ContainSubstring("namespaces is forbidden"))),
		"the SidecarSet that needs the namespace's labels should be left out with a warning that names it and says why")
}
