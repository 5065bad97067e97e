package controller

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/01-imoocpod/api/apps/v1"
)

// NameLabel marks every pod an ImoocPod creates with the ImoocPod's name, so that the
// controller (and you, with kubectl get pods -l) can list them.
const NameLabel = "apps.workshop.dev/imoocpod"

// maxBurst caps the creates or deletes of one pass, as the ReplicaSet controller does:
// a pass that asks for 1000 pods should not flood the API server. The next pass, started
// by the pod events, does the rest.
const maxBurst = 500

// ImoocPodReconciler keeps spec.replicas pods running for every ImoocPod.
type ImoocPodReconciler struct {
	client.Client
	Scheme *runtime.Scheme

	// expectations remembers the pods this controller created or deleted that the cache
	// has not shown yet.
	expectations podcontrol.Expectations
}

// +kubebuilder:rbac:groups=apps.workshop.dev,resources=imoocpods,verbs=get;list;watch
// Our pods point at their ImoocPod with blockOwnerDeletion (SetControllerReference sets
// it), which the API server allows only to who may update the ImoocPod's finalizers.
// +kubebuilder:rbac:groups=apps.workshop.dev,resources=imoocpods/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;delete

// Reconcile compares the pods that exist with spec.replicas and creates or deletes the
// difference, all in one pass. It is called for every change of an ImoocPod and of the
// pods it owns, and must give the same answer however often it runs. retErr is the
// pass's error, named so that what a pass defers can read it.
func (r *ImoocPodReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	// The cache is where reads come from. NotFound means the ImoocPod is gone: the
	// garbage collector deletes its pods through their OwnerReferences, so we are done.
	var imoocPod appsv1.ImoocPod
	if err := r.Get(ctx, req.NamespacedName, &imoocPod); err != nil {
		if apierrors.IsNotFound(err) {
			r.expectations.Forget(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting ImoocPod: %w", err)
	}
	// An ImoocPod being deleted (a foreground deletion waits for its pods) needs nothing
	// from us: it has no finalizer of ours, and the garbage collector takes its pods.
	if !imoocPod.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}

	return r.reconcilePods(ctx, &imoocPod)
}

// reconcilePods creates or deletes pods until spec.replicas of them are active.
func (r *ImoocPodReconciler) reconcilePods(ctx context.Context, imoocPod *appsv1.ImoocPod) (ctrl.Result, error) {
	log := log.FromContext(ctx)

	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(imoocPod.Namespace),
		client.MatchingLabels{NameLabel: imoocPod.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing pods: %w", err)
	}
	active := activePods(imoocPod, pods.Items)

	// Until the cache shows our last creates and deletes, its list is out of date, and
	// acting on it would create or delete the same pods twice. The events of those pods
	// will bring us back; the timeout covers an event that never comes.
	if wait := r.expectations.Pending(imoocPod, pods.Items); wait > 0 {
		log.V(1).Info("Waiting for the cache to show earlier creates and deletes", "timeout", wait)
		return ctrl.Result{RequeueAfter: wait}, nil
	}

	// Compare what runs with what is asked for and fix the whole difference in this
	// pass. Returning an error retries with backoff; there is never a reason to requeue
	// when all is well: the next change of the ImoocPod or its pods brings us back.
	want := int(ptr.Deref(imoocPod.Spec.Replicas, 1))
	switch diff := want - len(active); {
	case diff > 0:
		count := min(diff, maxBurst)
		log.Info("Creating pods", "count", count, "active", len(active), "replicas", want)
		return ctrl.Result{}, r.createPods(ctx, imoocPod, count)
	case diff < 0:
		victims := podsToDelete(active, min(-diff, maxBurst))
		log.Info("Deleting pods", "count", len(victims), "active", len(active), "replicas", want)
		return ctrl.Result{}, r.deletePods(ctx, imoocPod, victims)
	}
	log.V(1).Info("Pods match spec.replicas", "replicas", want)
	return ctrl.Result{}, nil
}

// createPods creates count pods for imoocPod in growing batches and records each one it
// created as expected, so that the next pass waits for the cache to show them.
func (r *ImoocPodReconciler) createPods(ctx context.Context, imoocPod *appsv1.ImoocPod, count int) error {
	created, err := podcontrol.SlowStart(count, func(int) error {
		pod, err := r.newPod(imoocPod)
		if err != nil {
			return err
		}
		if err := r.Create(ctx, pod); err != nil {
			return err
		}
		r.expectations.ExpectCreate(imoocPod, pod)
		return nil
	})
	log.FromContext(ctx).Info("Created pods", "created", created, "wanted", count)
	if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		// The namespace is being deleted: it accepts no new pod, and its deletion takes
		// the ImoocPod too. Nothing to retry, as for the ReplicaSet controller.
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating pods: %w", err)
	}
	return nil
}

// newPod returns the pod imoocPod asks for, labelled with its name and controlled by it.
func (r *ImoocPodReconciler) newPod(imoocPod *appsv1.ImoocPod) (*corev1.Pod, error) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: imoocPod.Name + "-",
			Namespace:    imoocPod.Namespace,
			Labels:       map[string]string{NameLabel: imoocPod.Name},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: imoocPod.Spec.Image}},
		},
	}
	if err := controllerutil.SetControllerReference(imoocPod, pod, r.Scheme); err != nil {
		return nil, fmt.Errorf("setting the controller reference: %w", err)
	}
	return pod, nil
}

// deletePods deletes pods in parallel and records each one as expected to go.
func (r *ImoocPodReconciler) deletePods(ctx context.Context, imoocPod *appsv1.ImoocPod, pods []corev1.Pod) error {
	deleted, err := podcontrol.InParallel(len(pods), func(i int) error {
		// A pod that is already gone is as good as deleted.
		if err := r.Delete(ctx, &pods[i]); client.IgnoreNotFound(err) != nil {
			return err
		}
		r.expectations.ExpectDelete(imoocPod, &pods[i])
		return nil
	})
	log.FromContext(ctx).Info("Deleted pods", "deleted", deleted, "wanted", len(pods))
	if err != nil {
		return fmt.Errorf("deleting pods: %w", err)
	}
	return nil
}

// SetupWithManager starts the controller: it reconciles an ImoocPod when the ImoocPod
// changes and when one of the pods it controls changes (Owns), which is how a deleted
// pod gets replaced.
func (r *ImoocPodReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&appsv1.ImoocPod{}).
		Owns(&corev1.Pod{}).
		// Before any filter, the expectations hear of every pod deletion.
		WithEventFilter(r.expectations.DeletionObserver()).
		Named("imoocpod").
		Complete(r)
}
