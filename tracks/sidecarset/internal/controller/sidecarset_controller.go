// Package controller holds the SidecarSet controller: it counts, for each SidecarSet, the
// pods it selects and the pods that run its sidecars, and reports them in its status.
// It never changes a pod: the pod webhook gives pods their sidecars when they are created.
package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/sidecars"
	"github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/telemetry"
)

// SidecarSetReconciler reports in each SidecarSet's status how many pods it selects, how
// many run its sidecars, and how many of those run an older revision of them.
type SidecarSetReconciler struct {
	client.Client
	Scheme *runtime.Scheme

	// APIReader reads from the API server, not the cache: a SidecarSet whose status
	// patch conflicted, because the cache's copy was older than the stored one.
	APIReader client.Reader

	// Recorder writes the SidecarSets' events (events.k8s.io/v1).
	Recorder events.EventRecorder

	// ExcludedNamespaces are the namespaces whose pods the webhook leaves alone
	// (sidecars.ExcludedNamespaces): their pods are not counted.
	ExcludedNamespaces []string
	//stage:17

	// Tracer starts the span of each pass; nil means the global tracer provider's, which
	// traces nothing unless cmd/main.go sets one (--trace-file).
	Tracer trace.Tracer
	//stage:end
}

// +kubebuilder:rbac:groups=sidecars.workshop.dev,resources=sidecarsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=sidecars.workshop.dev,resources=sidecarsets/status,verbs=get;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile counts the pods of one SidecarSet and patches its status when the counts
// changed. It is called for every change of a SidecarSet, of a pod's labels or injection
// record, and of a namespace's labels.
func (r *SidecarSetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	//lesson:17.3
	ctx, span := r.tracer().Start(ctx, "SidecarSet.Reconcile", trace.WithAttributes(
		attribute.String("sidecarset.name", req.Name),
		attribute.String("reconcile.id", string(controller.ReconcileIDFromContext(ctx)))))
	defer func() { telemetry.EndSpan(span, retErr) }()
	//lesson:end
	var set sidecarsv1.SidecarSet
	if err := r.Get(ctx, req.NamespacedName, &set); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting SidecarSet: %w", err)
	}

	// However the pass ends, the deferred patch sends the difference from the snapshot,
	// once, so that an error shows in the status and not only in this log.
	orig := set.DeepCopy()
	defer func() {
		if err := r.patchStatus(ctx, orig, &set, retErr); err != nil {
			retErr = errors.Join(retErr, err)
		}
		//lesson:17.2 pass
		telemetry.CountPass(set.Name, injectedReason(&set))
		//lesson:end
	}()

	// A pass that fails counted nothing it can trust: the counts and revision the last
	// pass stored stay, and only the Injected condition tells of the error.
	counted, err := r.countPods(ctx, &set)
	if err != nil {
		return ctrl.Result{}, err
	}
	set.Status.Revision = counted.Revision
	set.Status.MatchedPods, set.Status.InjectedPods, set.Status.OutdatedPods =
		counted.MatchedPods, counted.InjectedPods, counted.OutdatedPods
	return ctrl.Result{}, nil
}

// countPods counts set's pods in the cache into a status of its own, which holds only the
// revision and the counts.
func (r *SidecarSetReconciler) countPods(ctx context.Context, set *sidecarsv1.SidecarSet) (sidecarsv1.SidecarSetStatus, error) {
	counted := sidecarsv1.SidecarSetStatus{Revision: sidecars.Revision(&set.Spec)}

	// A selector that does not parse stays broken until the spec changes: retrying
	// cannot help (the validating webhook refuses such SidecarSets; this one was stored
	// without it).
	selector, namespaceSelector, err := selectorsOf(set)
	if err != nil {
		return counted, reconcile.TerminalError(err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return counted, fmt.Errorf("listing pods: %w", err)
	}
	namespaceLabels, err := r.namespaceLabels(ctx, namespaceSelector)
	if err != nil {
		return counted, err
	}
	for i := range pods.Items {
		countPod(&counted, &pods.Items[i], set, counted.Revision, r.ExcludedNamespaces, namespaceSelector, namespaceLabels)
	}
	return counted, nil
}

// countPod counts one pod set's selector matches into status: matched unless it is
// being deleted, lives in a namespace of excluded or in one the namespace selector (nil:
// none) does not match; injected when its record names the SidecarSet and it runs the
// sidecars the record says it was given (a record alone is anyone's to write); outdated
// when the revision it records is not revision. pod is what TrimPod keeps of it.
func countPod(status *sidecarsv1.SidecarSetStatus, pod *corev1.Pod, set *sidecarsv1.SidecarSet, revision string,
	excluded []string, namespaceSelector labels.Selector, namespaceLabels map[string]map[string]string) {
	//lesson:11.1
	if !pod.DeletionTimestamp.IsZero() || slices.Contains(excluded, pod.Namespace) {
		return
	}
	if namespaceSelector != nil && !namespaceSelector.Matches(labels.Set(namespaceLabels[pod.Namespace])) {
		return
	}
	status.MatchedPods++
	entry, recorded := sidecars.Injected(pod.Annotations)[set.Name]
	if !recorded || !sidecars.RunsRecorded(pod, entry, set) {
		return
	}
	status.InjectedPods++
	if entry.Revision != revision {
		status.OutdatedPods++
	}
	//lesson:end
}

// selectorsOf converts set's selectors; the namespace selector is nil when the spec has
// none. A missing or empty spec.selector is an error, as for sidecars.Selects it selects
// nothing: the validating webhook refuses both, and a SidecarSet stored without it gives
// no pod its sidecars.
func selectorsOf(set *sidecarsv1.SidecarSet) (labels.Selector, labels.Selector, error) {
	switch selector := set.Spec.Selector; {
	case selector == nil:
		return nil, nil, errors.New("spec.selector: Required value")
	case len(selector.MatchLabels)+len(selector.MatchExpressions) == 0:
		return nil, nil, errors.New("spec.selector: Invalid value: {}: an empty selector selects no pod: name the pods by a label")
	}
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, nil, fmt.Errorf("spec.selector: %w", err)
	}
	if set.Spec.NamespaceSelector == nil {
		return selector, nil, nil
	}
	namespaceSelector, err := metav1.LabelSelectorAsSelector(set.Spec.NamespaceSelector)
	if err != nil {
		return nil, nil, fmt.Errorf("spec.namespaceSelector: %w", err)
	}
	return selector, namespaceSelector, nil
}

// namespaceLabels returns the labels of every namespace, by name, when there is a
// namespace selector to match them against; nil otherwise.
func (r *SidecarSetReconciler) namespaceLabels(ctx context.Context, namespaceSelector labels.Selector) (map[string]map[string]string, error) {
	if namespaceSelector == nil {
		return nil, nil
	}
	var namespaces corev1.NamespaceList
	if err := r.List(ctx, &namespaces); err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	byName := make(map[string]map[string]string, len(namespaces.Items))
	for _, ns := range namespaces.Items {
		byName[ns.Name] = ns.Labels
	}
	return byName, nil
}

// SetupWithManager registers the controller. It hears of every change of a SidecarSet,
// its status included (see patchStatus), of pods whose labels, injection record or
// deletion changed (trimmed as sidecarset_cache.go says), and of namespaces whose labels
// changed.
func (r *SidecarSetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	//lesson:11.2
	//lesson:stub return ctrl.NewControllerManagedBy(mgr).For(&sidecarsv1.SidecarSet{}).Named("sidecarset").Complete(r)
	return ctrl.NewControllerManagedBy(mgr).
		For(&sidecarsv1.SidecarSet{}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.sidecarSetsOfPod),
			builder.WithPredicates(podChanged())).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.sidecarSetsWithNamespaceSelector),
			builder.WithPredicates(predicate.LabelChangedPredicate{})).
		Named("sidecarset").
		Complete(r)
	//lesson:end
}

// sidecarSetsOfPod names the SidecarSets a pod concerns: those that select it by its
// labels, and those its record says it was injected by. On an update controller-runtime
// calls it with the old pod and with the new one, so a SidecarSet the pod left hears of
// it too.
func (r *SidecarSetReconciler) sidecarSetsOfPod(ctx context.Context, pod client.Object) []reconcile.Request {
	var list sidecarsv1.SidecarSetList
	if err := r.List(ctx, &list); err != nil {
		// The cache lists from memory; it fails only when the manager is stopping.
		return nil
	}
	record := sidecars.Injected(pod.GetAnnotations())
	var requests []reconcile.Request
	for _, set := range list.Items {
		_, injected := record[set.Name]
		selector, _, err := selectorsOf(&set)
		if injected || (err == nil && selector.Matches(labels.Set(pod.GetLabels()))) {
			requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&set)})
		}
	}
	return requests
}

// sidecarSetsWithNamespaceSelector names the SidecarSets whose counts a namespace's labels
// can change: those with a namespace selector.
func (r *SidecarSetReconciler) sidecarSetsWithNamespaceSelector(ctx context.Context, _ client.Object) []reconcile.Request {
	var list sidecarsv1.SidecarSetList
	if err := r.List(ctx, &list); err != nil {
		return nil
	}
	var requests []reconcile.Request
	for _, set := range list.Items {
		if set.Spec.NamespaceSelector != nil {
			requests = append(requests, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&set)})
		}
	}
	return requests
}

// podChanged lets through the pod events that can change a count: a pod created or
// deleted, and an update of its labels, its injection record or its deletion time. Most
// updates of a pod are its status, written by the kubelet many times in its life; they
// change no count.
func podChanged() predicate.Predicate {
	//lesson:11.3
	//lesson:stub return predicate.Funcs{}
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, after := e.ObjectOld, e.ObjectNew
			return !maps.Equal(before.GetLabels(), after.GetLabels()) ||
				before.GetAnnotations()[sidecars.InjectedAnnotation] != after.GetAnnotations()[sidecars.InjectedAnnotation] ||
				before.GetDeletionTimestamp().IsZero() != after.GetDeletionTimestamp().IsZero()
		},
	}
	//lesson:end
}
