package v1

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/telemetry"
)

// PodWebhookPath is where the manager serves the pod webhook; the marker below names it.
const PodWebhookPath = "/mutate-v1-pod"

// SetupPodWebhookWithManager registers the pod webhook with the manager's webhook server.
// It reads SidecarSets and namespaces through the manager's client, from its cache: a
// webhook on every pod creation cannot afford a request to the API server for each. It
// leaves alone the pods of kube-system and of managerNamespace, the manager's own.
//
// The cache would start an informer for SidecarSets, and one for namespaces, on the
// webhook's first read, and make that call wait until it has listed them all: longer, on
// a big cluster, than the API server waits for the webhook. Asked for here, before the
// manager starts, they start with the cache, and the manager's cache sync, which its
// ready check "cache" waits for (cmd/main.go), includes them.
func SetupPodWebhookWithManager(mgr ctrl.Manager, managerNamespace string) error {
	for _, obj := range []client.Object{&sidecarsv1.SidecarSet{}, &corev1.Namespace{}} {
		if _, err := mgr.GetCache().GetInformer(context.Background(), obj, cache.BlockUntilSynced(false)); err != nil {
			return fmt.Errorf("caching %T for the pod webhook: %w", obj, err)
		}
	}
	mgr.GetWebhookServer().Register(PodWebhookPath, &admission.Webhook{Handler: &PodSidecarInjector{
		Client:             mgr.GetClient(),
		APIReader:          mgr.GetAPIReader(),
		Decoder:            admission.NewDecoder(mgr.GetScheme()),
		ExcludedNamespaces: sidecars.ExcludedNamespaces(managerNamespace),
	}})
	return nil
}

// The pod webhook. Every choice in its marker is about not blocking the cluster (see
// "Never block the cluster" in docs/lesson-10.md):
//   - verbs=create: a running pod is never changed (most of its spec cannot be);
//   - failurePolicy=ignore: while the manager is down or slow, pods are created without
//     their sidecars rather than not at all;
//   - timeoutSeconds=5: how long a pod creation may wait for the manager, at most;
//   - the namespaceSelector leaves out sidecars.ExcludedNamespaces of the namespace
//     config/default runs the manager in (which also copies the manager's namespace
//     there): the API server never calls the manager for their pods, whatever the
//     failure policy.
//
// One more is about a pod other webhooks change: reinvocationPolicy=IfNeeded shows this
// one a pod a later webhook changed (its labels, say) again; Inject skips the SidecarSets
// the record and the pod's containers say it has, and adds only what the change calls for.
//
// +kubebuilder:webhook:path=/mutate-v1-pod,mutating=true,failurePolicy=ignore,timeoutSeconds=5,reinvocationPolicy=IfNeeded,sideEffects=None,groups="",resources=pods,verbs=create,versions=v1,name=msidecarset-pod-v1.kb.io,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system","sidecarset-system"]}]}}`

// The webhook reads every SidecarSet and the namespaces of the pods it admits.
// +kubebuilder:rbac:groups=sidecars.workshop.dev,resources=sidecarsets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// PodSidecarInjector is the pod webhook: a plain admission.Handler, not a Defaulter,
// because it answers with warnings, and a Defaulter cannot.
type PodSidecarInjector struct {
	// Client reads SidecarSets and namespaces, from the manager's cache.
	Client client.Reader
	// APIReader reads from the API server, for a namespace the cache does not hold yet
	// (created a moment ago).
	APIReader client.Reader
	// Decoder reads the pod out of the request.
	Decoder admission.Decoder
	// ExcludedNamespaces are the namespaces whose pods the webhook leaves alone
	// (sidecars.ExcludedNamespaces): the configuration's namespaceSelector should keep
	// the API server from calling it for them at all.
	ExcludedNamespaces []string
}

var _ admission.Handler = &PodSidecarInjector{}

// Handle answers the API server's call for one pod creation: allowed, with a patch that
// adds the sidecars of the SidecarSets that select the pod, and a warning for each one it
// had to leave out. It refuses no pod: when it cannot decode the pod or read the
// SidecarSets, the pod is created without sidecars, as failurePolicy=ignore would have
// it. The patch only adds (see additions): it never removes a field of the pod, even one
// this manager does not know.
func (i *PodSidecarInjector) Handle(ctx context.Context, req admission.Request) admission.Response {
	// TODO(2): Record each answer and each pass.
	// Handle records, however it returns, its outcome and how long it took with
	// telemetry.ObserveAdmission; the returns below set outcome. The reconciler counts
	// each pass when it ends (the "pass" place). A scraper allowed to read /metrics
	// sees both through the secured endpoint. See "Metrics of your own" in
	// docs/lesson-17.md.
	outcome := telemetry.OutcomeNotSelected
	_ = outcome
	if req.Operation != admissionv1.Create || slices.Contains(i.ExcludedNamespaces, req.Namespace) {
		return admission.Allowed("")
	}
	var pod corev1.Pod
	if err := i.Decoder.Decode(req, &pod); err != nil {
		// The API server read the pod: one this manager's k8s.io/api cannot is a newer
		// API server's, which validates it after the webhooks. An error answer would
		// refuse it whatever the failure policy.
		log.FromContext(ctx).Error(err, "Admitting a pod that does not decode without sidecars",
			"namespace", req.Namespace, "name", req.Name)
		return admission.Allowed("").WithWarnings(fmt.Sprintf("no sidecars were injected: the pod does not decode: %v", err))
	}
	selecting, warnings, err := i.selecting(ctx, &pod, req.Namespace)
	if err != nil {
		outcome = telemetry.OutcomeLookupFailed
		log.FromContext(ctx).Error(err, "Admitting a pod without sidecars", "namespace", req.Namespace, "name", podName(&pod))
		return admission.Allowed("").WithWarnings(fmt.Sprintf("no sidecars were injected: %v", err))
	}
	if len(selecting) == 0 {
		return admission.Allowed("").WithWarnings(warnings...)
	}
	injected := pod.DeepCopy()
	warnings = append(warnings, Inject(injected, selecting)...)
	// An answer that adds nothing (a pod the API server sends again, whose sidecars are
	// in) injected nothing.
	patch := additions(&pod, injected)
	if len(patch) > 0 {
		outcome = telemetry.OutcomeInjected
	}
	return admission.Patched("", patch...).WithWarnings(warnings...)
}

// additions returns the JSON patch that turns original into injected, which Inject made
// of a copy of it, as "add" operations only: the init containers and the volumes Inject
// appended, and the record. A patch computed between the request's pod and the pod
// re-encoded (admission.PatchResponseFromRaw) would also remove every field the pod has
// and corev1.Pod does not: a field of an API server newer than this manager's k8s.io/api,
// lost from every pod after an upgrade of the control plane (see "The answer" in
// docs/lesson-10.md).
func additions(original, injected *corev1.Pod) []jsonpatch.JsonPatchOperation {
	var ops []jsonpatch.JsonPatchOperation
	ops = append(ops, appended("/spec/initContainers", injected.Spec.InitContainers, len(original.Spec.InitContainers))...)
	ops = append(ops, appended("/spec/volumes", injected.Spec.Volumes, len(original.Spec.Volumes))...)
	record, ok := injected.Annotations[sidecars.InjectedAnnotation]
	switch {
	case !ok || record == original.Annotations[sidecars.InjectedAnnotation]:
	case len(original.Annotations) == 0:
		ops = append(ops, jsonpatch.NewOperation("add", "/metadata/annotations", map[string]string{sidecars.InjectedAnnotation: record}))
	default:
		// An "add" of a member that exists replaces its value: the record, ours.
		ops = append(ops, jsonpatch.NewOperation("add", "/metadata/annotations/"+pointerEscape(sidecars.InjectedAnnotation), record))
	}
	return ops
}

// appended returns the operations that add the items of list after its first had: the
// whole list when there were none (the pod may have no such field at all), else each
// item at the end ("-").
func appended[T any](path string, list []T, had int) []jsonpatch.JsonPatchOperation {
	added := list[had:]
	switch {
	case len(added) == 0:
		return nil
	case had == 0:
		return []jsonpatch.JsonPatchOperation{jsonpatch.NewOperation("add", path, added)}
	}
	ops := make([]jsonpatch.JsonPatchOperation, 0, len(added))
	for _, item := range added {
		ops = append(ops, jsonpatch.NewOperation("add", path+"/-", item))
	}
	return ops
}

// pointerEscape escapes a key for a JSON pointer (RFC 6901): ~ as ~0, / as ~1.
func pointerEscape(key string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
}

// selecting returns the SidecarSets that select pod in namespace, sorted by name, so that
// two SidecarSets that want the same container name settle it the same way for every
// pod; and a warning for each SidecarSet whose selector does not parse. It reads the
// namespace only when some SidecarSet has a namespaceSelector: from the cache, and from
// the API server when the cache does not have it yet. A namespace created a moment
// before its first pods (kubectl create namespace, then kubectl apply) is no rare case.
// When the namespace cannot be read, only the SidecarSets with a namespaceSelector are
// left out, each with a warning: the others do not need it.
func (i *PodSidecarInjector) selecting(ctx context.Context, pod *corev1.Pod, namespace string) ([]sidecarsv1.SidecarSet, []string, error) {
	var list sidecarsv1.SidecarSetList
	if err := i.Client.List(ctx, &list); err != nil {
		return nil, nil, fmt.Errorf("listing SidecarSets: %w", err)
	}
	slices.SortFunc(list.Items, func(a, b sidecarsv1.SidecarSet) int { return strings.Compare(a.Name, b.Name) })
	var namespaceLabels map[string]string
	var namespaceErr error
	if slices.ContainsFunc(list.Items, func(s sidecarsv1.SidecarSet) bool { return s.Spec.NamespaceSelector != nil }) {
		var ns corev1.Namespace
		err := i.Client.Get(ctx, client.ObjectKey{Name: namespace}, &ns)
		if apierrors.IsNotFound(err) {
			err = i.APIReader.Get(ctx, client.ObjectKey{Name: namespace}, &ns)
		}
		if err != nil {
			namespaceErr = fmt.Errorf("getting namespace %s: %w", namespace, err)
			log.FromContext(ctx).Error(namespaceErr, "Leaving out the SidecarSets with a namespaceSelector", "namespace", namespace)
		}
		namespaceLabels = ns.Labels
	}
	var selected []sidecarsv1.SidecarSet
	var warnings []string
	for _, set := range list.Items {
		if set.Spec.NamespaceSelector != nil && namespaceErr != nil {
			warnings = append(warnings, fmt.Sprintf("SidecarSet %s is left out: %v", set.Name, namespaceErr))
			continue
		}
		ok, err := sidecars.Selects(&set, pod.Labels, namespaceLabels)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("SidecarSet %s is left out: %v", set.Name, err))
			continue
		}
		if ok {
			selected = append(selected, set)
		}
	}
	return selected, warnings, nil
}

// podName names a pod in the log: a pod of a Deployment has no name yet when it is
// admitted, only the prefix its name will start with.
func podName(pod *corev1.Pod) string {
	if pod.Name != "" {
		return pod.Name
	}
	return pod.GenerateName + "*"
}
