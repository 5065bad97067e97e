package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/12-clientgo/api/apps/v1"
)

// NameLabel marks every pod an ImoocPod creates with the ImoocPod's name, so that the
// controller (and you, with kubectl get pods -l) can list them.
const NameLabel = "apps.workshop.dev/imoocpod"

// maxBurst caps the creates or deletes of one pass, as the ReplicaSet controller does:
// a pass that asks for 1000 pods should not flood the API server. The next pass, started
// by the pod events, does the rest.
const maxBurst = 500

// sync is solution 02's Reconcile: it compares the pods that exist with spec.replicas,
// creates or deletes the difference, all in one pass, and reports what it found in the
// status. It returns how long to wait before the next pass when it must wait for the
// cache (Result{RequeueAfter}), or an error to be retried with backoff.
func (c *Controller) sync(ctx context.Context, key types.NamespacedName) (_ time.Duration, retErr error) {
	// The lister reads the cache. NotFound means the ImoocPod is gone: the garbage
	// collector deletes its pods through their OwnerReferences, so we are done.
	cached, err := c.imoocPodLister.Get(key.Namespace, key.Name)
	if apierrors.IsNotFound(err) {
		c.expectations.Forget(key)
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("getting ImoocPod: %w", err)
	}
	// An ImoocPod being deleted (a foreground deletion waits for its pods) needs nothing
	// from us: it has no finalizer of ours, and the garbage collector takes its pods.
	if !cached.DeletionTimestamp.IsZero() {
		return 0, nil
	}
	// The informer shows a write a moment after it is made, and our status patches start
	// no pass (updateImoocPod): this pass may read the ImoocPod as it was before our last
	// one. Compared with such a copy, a status that went back to what it was before that
	// patch looks unchanged and is never written. So an ImoocPod older than our last
	// status patch is read again from the API server.
	// NotFound there means what it means in the cache: the ImoocPod is gone.
	if c.statusWrites.Predates(cached) {
		cached, err = c.imoocPods.Get(ctx, key.Namespace, key.Name)
		if apierrors.IsNotFound(err) {
			c.expectations.Forget(key)
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("reading the ImoocPod from the API server: %w", err)
		}
	}

	// The cache's objects are shared by every reader: the pass changes a copy. A second
	// copy is the snapshot the deferred patch compares with, once, however the pass ends,
	// so that an error shows in the Ready condition and not only in the log.
	imoocPod := cached.DeepCopy()
	orig := cached.DeepCopy()
	defer func() {
		if err := c.patchStatus(ctx, orig, imoocPod, retErr); err != nil {
			retErr = errors.Join(retErr, err)
		}
	}()

	return c.syncPods(ctx, imoocPod)
}

// syncPods creates or deletes pods until spec.replicas of them are active.
func (c *Controller) syncPods(ctx context.Context, imoocPod *appsv1.ImoocPod) (time.Duration, error) {
	log := logr.FromContextOrDiscard(ctx)

	selector := labels.SelectorFromSet(labels.Set{NameLabel: imoocPod.Name})
	listed, err := c.podLister.Pods(imoocPod.Namespace).List(selector)
	if err != nil {
		return 0, fmt.Errorf("listing pods: %w", err)
	}
	// The lister returns the cache's pods. Shallow copies share their maps and slices
	// with the cache: read them, never change them.
	pods := make([]corev1.Pod, len(listed))
	for i, pod := range listed {
		pods[i] = *pod
	}
	active := activePods(imoocPod, pods)

	// The status counts the pods this pass found, before its own creates and deletes;
	// their events start the next pass, which counts them. status.selector is how the
	// scale subresource tells an autoscaler which pods to measure.
	imoocPod.Status.Selector = selector.String()
	imoocPod.Status.Replicas = int32(len(active))
	imoocPod.Status.ReadyReplicas = 0
	for i := range active {
		if podcontrol.IsPodReady(&active[i]) {
			imoocPod.Status.ReadyReplicas++
		}
	}

	// Until the cache shows our last creates and deletes, its list is out of date, and
	// acting on it would create or delete the same pods twice. The informer's events
	// both fill the cache and bring the ImoocPod back to the queue; the timeout covers an
	// event that never comes. Waiting is not failing: the pass has read the current spec,
	// so it still moves observedGeneration.
	if wait := c.expectations.Pending(imoocPod, pods); wait > 0 {
		log.V(1).Info("Waiting for the cache to show earlier creates and deletes", "timeout", wait)
		return wait, nil
	}

	// Compare what runs with what is asked for and fix the whole difference in this
	// pass. Returning an error retries with backoff; there is never a reason to requeue
	// when all is well: the next change of the ImoocPod or its pods brings us back.
	want := int(ptr.Deref(imoocPod.Spec.Replicas, 1))
	switch diff := want - len(active); {
	case diff > 0:
		count := min(diff, maxBurst)
		log.Info("Creating pods", "count", count, "active", len(active), "replicas", want)
		return 0, c.createPods(ctx, imoocPod, count)
	case diff < 0:
		victims := podsToDelete(active, min(-diff, maxBurst))
		log.Info("Deleting pods", "count", len(victims), "active", len(active), "replicas", want)
		return 0, c.deletePods(ctx, imoocPod, victims)
	}
	log.V(1).Info("Pods match spec.replicas", "replicas", want, "ready", imoocPod.Status.ReadyReplicas)
	return 0, nil
}

// createPods creates count pods for imoocPod in growing batches and records each one it
// created as expected, so that the next pass waits for the cache to show them.
func (c *Controller) createPods(ctx context.Context, imoocPod *appsv1.ImoocPod, count int) error {
	created, err := podcontrol.SlowStart(count, func(int) error {
		pod, err := c.kube.CoreV1().Pods(imoocPod.Namespace).Create(ctx, newPod(imoocPod), metav1.CreateOptions{})
		if err != nil {
			return err
		}
		// The API server chose the name (generateName): expect the one it returned.
		c.expectations.ExpectCreate(imoocPod, pod)
		return nil
	})
	logr.FromContextOrDiscard(ctx).Info("Created pods", "created", created, "wanted", count)
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
func newPod(imoocPod *appsv1.ImoocPod) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: imoocPod.Name + "-",
			Namespace:    imoocPod.Namespace,
			Labels:       map[string]string{NameLabel: imoocPod.Name},
			// controllerutil.SetControllerReference finds the kind in the scheme; here
			// we name it. NewControllerRef sets controller and blockOwnerDeletion.
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(imoocPod, appsv1.GroupVersion.WithKind("ImoocPod")),
			},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: imoocPod.Spec.Image}},
		},
	}
}

// deletePods deletes pods in parallel and records each one as expected to go.
func (c *Controller) deletePods(ctx context.Context, imoocPod *appsv1.ImoocPod, pods []corev1.Pod) error {
	deleted, err := podcontrol.InParallel(len(pods), func(i int) error {
		// A pod that is already gone is as good as deleted.
		err := c.kube.CoreV1().Pods(pods[i].Namespace).Delete(ctx, pods[i].Name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.expectations.ExpectDelete(imoocPod, &pods[i])
		return nil
	})
	logr.FromContextOrDiscard(ctx).Info("Deleted pods", "deleted", deleted, "wanted", len(pods))
	if err != nil {
		return fmt.Errorf("deleting pods: %w", err)
	}
	return nil
}
