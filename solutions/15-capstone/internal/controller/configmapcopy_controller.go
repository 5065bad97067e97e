/*
Copyright 2026.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package controller

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	copiesv1 "github.com/kube-workshop/operator-workshop/solutions/15-capstone/api/v1"
)

const (
	// finalizer holds a ConfigMapCopy until its copies are gone. An owner reference
	// alone would leave them to the garbage collector, which the embedded cluster does
	// not run, and which could not be asked when it is done.
	finalizer = "copies.workshop.dev/copies"
	// copyOfLabel names, on each copy, the ConfigMapCopy that made it, so that one
	// list finds every copy across namespaces. Anyone can write a label: a ConfigMap is
	// a copy only when its controller owner reference carries the ConfigMapCopy's UID.
	copyOfLabel = "copies.workshop.dev/copy-of"
	// The field indexes that map a ConfigMap event to the ConfigMapCopies it concerns.
	sourceIndex = "spec.source"
	targetIndex = "spec.targetName"
)

// ConfigMapCopyReconciler copies a ConfigMap into the namespaces a selector picks.
type ConfigMapCopyReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// +kubebuilder:rbac:groups=copies.workshop.dev,resources=configmapcopies,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=copies.workshop.dev,resources=configmapcopies/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=copies.workshop.dev,resources=configmapcopies/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch

// scope is what one pass found: the status is computed from it in one place.
type scope struct {
	sourceFound bool
	inLine      int
	conflicts   []string          // namespaces holding someone else's ConfigMap of the copies' name
	failures    map[string]string // namespace: why its copy could not be written
}

// Reconcile brings the copies of one ConfigMapCopy in line with its source and selector.
func (r *ConfigMapCopyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cc copiesv1.ConfigMapCopy
	if err := r.Get(ctx, req.NamespacedName, &cc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	// Deletion: remove every copy, in every namespace, then let the object go.
	if !cc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.reconcileDelete(ctx, &cc)
	}
	if !controllerutil.ContainsFinalizer(&cc, finalizer) {
		patch := client.MergeFrom(cc.DeepCopy())
		controllerutil.AddFinalizer(&cc, finalizer)
		return ctrl.Result{}, r.Patch(ctx, &cc, patch)
	}

	sc, err := r.reconcileCopies(ctx, &cc)
	if statusErr := r.patchStatus(ctx, &cc, sc, err == nil); statusErr != nil {
		return ctrl.Result{}, errors.Join(err, statusErr)
	}
	return ctrl.Result{}, err
}

// reconcileCopies writes a copy into every selected namespace and removes the copies
// from the others. A namespace that refuses its copy is noted and the others go on.
func (r *ConfigMapCopyReconciler) reconcileCopies(ctx context.Context, cc *copiesv1.ConfigMapCopy) (*scope, error) {
	sc := &scope{failures: map[string]string{}}
	selector, err := metav1.LabelSelectorAsSelector(&cc.Spec.NamespaceSelector)
	if err != nil {
		// Only a spec change can fix it; the webhook refuses such a selector.
		return sc, reconcile.TerminalError(fmt.Errorf("spec.namespaceSelector: %w", err))
	}
	var source corev1.ConfigMap
	err = r.Get(ctx, types.NamespacedName{Namespace: cc.Spec.Source.Namespace, Name: cc.Spec.Source.Name}, &source)
	switch {
	case apierrors.IsNotFound(err):
		// The copies stay as they are: a source deleted by mistake, or not yet made,
		// must not empty every namespace.
		return sc, nil
	case err != nil:
		return sc, err
	}
	sc.sourceFound = true

	var namespaces corev1.NamespaceList
	if err := r.List(ctx, &namespaces, client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return sc, err
	}
	wanted := map[string]bool{}
	for _, ns := range namespaces.Items {
		if ns.Name == source.Namespace {
			continue // the source's own namespace holds the source, never a copy
		}
		wanted[ns.Name] = true
		if err := r.writeCopy(ctx, cc, &source, ns.Name, sc); err != nil {
			sc.failures[ns.Name] = err.Error()
		}
	}

	copies, err := r.copiesOf(ctx, cc)
	if err != nil {
		return sc, err
	}
	for i := range copies {
		c := &copies[i]
		if wanted[c.Namespace] && c.Name == cc.Spec.TargetName {
			continue
		}
		if err := r.Delete(ctx, c, client.Preconditions{UID: &c.UID}); client.IgnoreNotFound(err) != nil {
			sc.failures[c.Namespace] = err.Error()
		} else {
			logf.FromContext(ctx).Info("Deleted copy", "namespace", c.Namespace, "name", c.Name)
		}
	}
	if len(sc.failures) > 0 {
		return sc, fmt.Errorf("%d namespaces could not be brought in line: %s", len(sc.failures), joinKeys(sc.failures))
	}
	return sc, nil
}

// writeCopy creates or corrects the copy in namespace ns. A ConfigMap of that name
// that is not a copy of cc is someone else's: a conflict, never overwritten.
func (r *ConfigMapCopyReconciler) writeCopy(ctx context.Context, cc *copiesv1.ConfigMapCopy, source *corev1.ConfigMap, ns string, sc *scope) error {
	var have corev1.ConfigMap
	err := r.Get(ctx, types.NamespacedName{Namespace: ns, Name: cc.Spec.TargetName}, &have)
	if apierrors.IsNotFound(err) {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cc.Spec.TargetName,
			Labels: map[string]string{copyOfLabel: cc.Name}}, Data: source.Data, BinaryData: source.BinaryData}
		if err := controllerutil.SetControllerReference(cc, c, r.Scheme); err != nil {
			return err
		}
		if err := r.Create(ctx, c); apierrors.IsAlreadyExists(err) {
			// The cache has not seen the copy an earlier pass made, or someone's
			// ConfigMap: its event runs another pass, which tells which.
			return nil
		} else if err != nil {
			return err
		}
		logf.FromContext(ctx).Info("Created copy", "namespace", ns, "name", c.Name)
		sc.inLine++
		return nil
	}
	if err != nil {
		return err
	}
	if !isCopyOf(&have, cc) {
		sc.conflicts = append(sc.conflicts, ns)
		return nil
	}
	if equality.Semantic.DeepEqual(have.Data, source.Data) && equality.Semantic.DeepEqual(have.BinaryData, source.BinaryData) &&
		have.Labels[copyOfLabel] == cc.Name {
		sc.inLine++
		return nil
	}
	// The copy is changed from the cache's version, with its resourceVersion: a write
	// that raced ours fails with a conflict, and the next pass reads it again.
	want := have.DeepCopy()
	want.Data, want.BinaryData = source.Data, source.BinaryData
	if want.Labels == nil {
		want.Labels = map[string]string{}
	}
	want.Labels[copyOfLabel] = cc.Name
	if err := r.Update(ctx, want); apierrors.IsConflict(err) {
		// Someone changed the copy since the cache saw it: the change's event runs
		// another pass on the newer copy.
		return nil
	} else if err != nil {
		return err
	}
	logf.FromContext(ctx).Info("Updated copy", "namespace", ns, "name", want.Name)
	sc.inLine++
	return nil
}

// copiesOf lists every copy cc made, in every namespace: the ConfigMaps with its label
// and its UID in their controller reference.
func (r *ConfigMapCopyReconciler) copiesOf(ctx context.Context, cc *copiesv1.ConfigMapCopy) ([]corev1.ConfigMap, error) {
	var list corev1.ConfigMapList
	if err := r.List(ctx, &list, client.MatchingLabels{copyOfLabel: cc.Name}); err != nil {
		return nil, err
	}
	var out []corev1.ConfigMap
	for _, c := range list.Items {
		if isCopyOf(&c, cc) {
			out = append(out, c)
		}
	}
	return out, nil
}

// isCopyOf says whether c was made by cc: its controller is cc, by UID.
func isCopyOf(c *corev1.ConfigMap, cc *copiesv1.ConfigMapCopy) bool {
	ref := metav1.GetControllerOf(c)
	return ref != nil && ref.UID == cc.UID
}

// reconcileDelete removes every copy, then the finalizer. Owner references cannot do
// it alone: the garbage collector may not run, and nothing would tell when it is done.
func (r *ConfigMapCopyReconciler) reconcileDelete(ctx context.Context, cc *copiesv1.ConfigMapCopy) error {
	if !controllerutil.ContainsFinalizer(cc, finalizer) {
		return nil
	}
	copies, err := r.copiesOf(ctx, cc)
	if err != nil {
		return err
	}
	var errs []error
	for i := range copies {
		c := &copies[i]
		if err := r.Delete(ctx, c, client.Preconditions{UID: &c.UID}); client.IgnoreNotFound(err) != nil {
			errs = append(errs, fmt.Errorf("namespace %s: %w", c.Namespace, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	patch := client.MergeFrom(cc.DeepCopy())
	controllerutil.RemoveFinalizer(cc, finalizer)
	// A pass that read the object from the cache after an earlier pass let it go finds
	// it gone: nothing is left to do.
	return client.IgnoreNotFound(r.Patch(ctx, cc, patch))
}

// patchStatus computes the conditions from the pass's scope and patches the status
// when it changed. observedGeneration moves only when the pass went through.
func (r *ConfigMapCopyReconciler) patchStatus(ctx context.Context, cc *copiesv1.ConfigMapCopy, sc *scope, passed bool) error {
	before := cc.DeepCopy()
	gen := cc.Generation
	ready := metav1.Condition{Type: copiesv1.ConditionReady, Status: metav1.ConditionTrue, Reason: copiesv1.ReasonCopied,
		Message: fmt.Sprintf("%d namespaces hold a copy in line with the source", sc.inLine), ObservedGeneration: gen}
	switch {
	case !sc.sourceFound:
		ready.Status, ready.Reason = metav1.ConditionFalse, copiesv1.ReasonSourceNotFound
		ready.Message = fmt.Sprintf("ConfigMap %s/%s does not exist; the copies stay as they are", cc.Spec.Source.Namespace, cc.Spec.Source.Name)
	case len(sc.failures) > 0:
		ready.Status, ready.Reason = metav1.ConditionFalse, copiesv1.ReasonCopyFailed
		ready.Message = "could not write the copy in namespaces " + joinKeys(sc.failures)
	case len(sc.conflicts) > 0:
		ready.Status, ready.Reason = metav1.ConditionFalse, copiesv1.ReasonConflict
		ready.Message = "someone else's ConfigMap stands in namespaces " + strings.Join(sorted(sc.conflicts), ", ")
	}
	conflict := metav1.Condition{Type: copiesv1.ConditionConflict, Status: metav1.ConditionFalse, Reason: copiesv1.ReasonNoConflict,
		Message: "no selected namespace holds someone else's ConfigMap of the copies' name", ObservedGeneration: gen}
	if len(sc.conflicts) > 0 {
		conflict.Status, conflict.Reason = metav1.ConditionTrue, copiesv1.ReasonConflict
		conflict.Message = fmt.Sprintf("left untouched, as they are not copies: ConfigMap %s in namespaces %s", cc.Spec.TargetName, strings.Join(sorted(sc.conflicts), ", "))
	}
	meta.SetStatusCondition(&cc.Status.Conditions, ready)
	meta.SetStatusCondition(&cc.Status.Conditions, conflict)
	cc.Status.Copies = int32(sc.inLine)
	if passed || !sc.sourceFound {
		cc.Status.ObservedGeneration = gen
	}
	if equality.Semantic.DeepEqual(before.Status, cc.Status) {
		return nil
	}
	// "Changed" is judged against the cache, which may predate our last status write:
	// that write's own event runs another pass on the newer object, so the status
	// converges without a lock that would fail, and log, on every stale read.
	return r.Status().Patch(ctx, cc, client.MergeFrom(before))
}

// SetupWithManager watches the ConfigMapCopies, every ConfigMap that is a source, a copy
// or stands in a copy's place, and the namespaces, whose labels decide the copies.
func (r *ConfigMapCopyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	ctx := context.Background()
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &copiesv1.ConfigMapCopy{}, sourceIndex, func(o client.Object) []string {
		cc := o.(*copiesv1.ConfigMapCopy)
		return []string{cc.Spec.Source.Namespace + "/" + cc.Spec.Source.Name}
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &copiesv1.ConfigMapCopy{}, targetIndex, func(o client.Object) []string {
		return []string{o.(*copiesv1.ConfigMapCopy).Spec.TargetName}
	}); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&copiesv1.ConfigMapCopy{}).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.forConfigMap)).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.all)).
		Named("configmapcopy").
		Complete(r)
}

// forConfigMap maps a ConfigMap to the ConfigMapCopies whose source it is, or whose
// copies carry its name: a copy, or someone else's ConfigMap in a copy's place.
func (r *ConfigMapCopyReconciler) forConfigMap(ctx context.Context, o client.Object) []reconcile.Request {
	var requests []reconcile.Request
	for field, value := range map[string]string{sourceIndex: o.GetNamespace() + "/" + o.GetName(), targetIndex: o.GetName()} {
		var list copiesv1.ConfigMapCopyList
		if err := r.List(ctx, &list, client.MatchingFields{field: value}); err != nil {
			logf.FromContext(ctx).Error(err, "Cannot list ConfigMapCopies", "field", field)
			continue
		}
		for _, cc := range list.Items {
			requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Name: cc.Name}})
		}
	}
	return requests
}

// all maps a namespace to every ConfigMapCopy: its labels may enter or leave any selector.
func (r *ConfigMapCopyReconciler) all(ctx context.Context, _ client.Object) []reconcile.Request {
	var list copiesv1.ConfigMapCopyList
	if err := r.List(ctx, &list); err != nil {
		logf.FromContext(ctx).Error(err, "Cannot list ConfigMapCopies")
		return nil
	}
	requests := make([]reconcile.Request, 0, len(list.Items))
	for _, cc := range list.Items {
		requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Name: cc.Name}})
	}
	return requests
}

func joinKeys(m map[string]string) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}
