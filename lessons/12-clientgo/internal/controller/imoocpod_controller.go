// Package controller is the ImoocPod controller of lesson 02 on bare client-go: the
// informers, the work queue and the workers that controller-runtime's builder and
// manager set up for a Reconcile are written out here, in the shape of
// kubernetes/sample-controller and the ReplicaSet controller.
package controller

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/12-clientgo/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/lessons/12-clientgo/internal/imoocpods"
	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/statuswrite"
)

// Name names the controller in its logs and metrics, as Named("imoocpod") does for
// controller-runtime.
const Name = "imoocpod"

// The RBAC markers are the same as solution 02's: controller-gen writes
// config/rbac/role.yaml from them whichever library makes the requests.
// +kubebuilder:rbac:groups=apps.workshop.dev,resources=imoocpods,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps.workshop.dev,resources=imoocpods/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=apps.workshop.dev,resources=imoocpods/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;delete

// Controller keeps spec.replicas pods running for every ImoocPod.
type Controller struct {
	// kube writes pods; imoocPods writes the status of ImoocPods.
	kube      kubernetes.Interface
	imoocPods *imoocpods.Client

	// The listers read the informers' caches; cacheSynced reports whether both caches
	// hold a complete list.
	imoocPodLister imoocpods.Lister
	podLister      corelisters.PodLister
	cacheSynced    []cache.InformerSynced

	// queue holds the keys of the ImoocPods to sync. It never hands a key to two workers
	// at once, merges the adds of a key that waits, and spaces out the retries of a key
	// that keeps failing.
	queue workqueue.TypedRateLimitingInterface[types.NamespacedName]

	// expectations remembers the pods this controller created or deleted that the cache
	// has not shown yet; statusWrites, the resourceVersion of each ImoocPod's last status
	// patch, until the cache shows it.
	expectations podcontrol.Expectations
	statusWrites statuswrite.Tracker

	// Syncs counts the passes by result, for the metrics endpoint.
	Syncs SyncCounts
}

// New returns a controller that reads the ImoocPods of imoocPodInformer (made by
// imoocpods.Informer) and the pods of podInformer, and writes through kube and
// imoocPodClient. It registers its event handlers; start the informers after New and
// before Run.
func New(kube kubernetes.Interface, imoocPodClient *imoocpods.Client,
	imoocPodInformer cache.SharedIndexInformer, podInformer coreinformers.PodInformer) (*Controller, error) {
	c := &Controller{
		kube:           kube,
		imoocPods:      imoocPodClient,
		imoocPodLister: imoocpods.NewLister(imoocPodInformer),
		podLister:      podInformer.Lister(),
		cacheSynced:    []cache.InformerSynced{imoocPodInformer.HasSynced, podInformer.Informer().HasSynced},
		// The default rate limiter retries a failing key after 5 ms, doubling up to
		// 1000 s, and caps all retries together at 10 per second (burst 100): the same
		// as controller-runtime's.
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: Name}),
	}

	// For(&appsv1.ImoocPod{}) with GenerationChangedPredicate: every create and delete,
	// and the updates that change the spec. Our own status patches bump no generation.
	_, err := imoocPodInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueImoocPod,
		UpdateFunc: c.updateImoocPod,
		DeleteFunc: c.enqueueImoocPod,
	})
	if err != nil {
		return nil, fmt.Errorf("watching ImoocPods: %w", err)
	}

	// Owns(&corev1.Pod{}) with podChangedPredicate: each pod event enqueues the ImoocPod
	// that controls the pod; a deletion first reaches the expectations, as
	// WithEventFilter(expectations.DeletionObserver()) does in lesson 02.
	_, err = podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueueController,
		UpdateFunc: c.updatePod,
		DeleteFunc: c.deletePod,
	})
	if err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return c, nil
}

// enqueueImoocPod adds the key of an ImoocPod to the queue.
func (c *Controller) enqueueImoocPod(obj any) {
	// A delete the informer missed (its watch broke, and the next list no longer had
	// the object) arrives as a tombstone holding the last state it knew.
	name, err := cache.DeletionHandlingObjectToName(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(types.NamespacedName{Namespace: name.Namespace, Name: name.Name})
}

// updateImoocPod enqueues an ImoocPod whose spec changed: the API server bumps
// metadata.generation for a change of spec, never for a write of the status. An informer
// that missed a delete and a create of the same name learns of both when it lists again,
// as one update from one object to another (another UID): the new one needs its pass.
func (c *Controller) updateImoocPod(oldObj, newObj any) {
	oldIP, okOld := oldObj.(*appsv1.ImoocPod)
	newIP, okNew := newObj.(*appsv1.ImoocPod)
	if okOld && okNew && oldIP.UID == newIP.UID && oldIP.Generation == newIP.Generation {
		return
	}
	c.enqueueImoocPod(newObj)
}

// updatePod enqueues the controllers of a pod whose update changed something a pass
// reads; the kubelet's other reports start no pass. podChanged is lesson 02's, which
// its podChangedPredicate wraps: here the pod informer's UpdateFunc calls it.
func (c *Controller) updatePod(oldObj, newObj any) {
	oldPod, okOld := oldObj.(*corev1.Pod)
	newPod, okNew := newObj.(*corev1.Pod)
	if okOld && okNew && !podChanged(oldPod, newPod) {
		return
	}
	// A changed owner reference moves the pod from one ImoocPod to another: both must
	// count again.
	c.enqueueController(oldObj)
	c.enqueueController(newObj)
}

// enqueueController adds to the queue the ImoocPod that controls a pod, if one does:
// what controller-runtime's handler.EnqueueRequestForOwner with OnlyControllerOwner()
// does for Owns. A pod with our label but no controller reference to an ImoocPod
// belongs to someone else and enqueues nothing.
func (c *Controller) enqueueController(obj any) {
	// TODO(2): Enqueue the ImoocPod that controls a pod.
	// A pod event, a delete the informer missed (a tombstone) included, must
	// enqueue the ImoocPod that controls the pod, in the pod's namespace;
	// nothing for an owner that does not control it or a controller of
	// another kind or group (any version of apps.workshop.dev counts). See "From an event to a key" in
	// docs/lesson-12.md.
}

// deletePod tells the expectations that a pod is gone, then queues its ImoocPod: the pass
// this starts must not wait for a pod that no list will show again.
func (c *Controller) deletePod(obj any) {
	pod, _ := obj.(*corev1.Pod)
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		pod, _ = tombstone.Obj.(*corev1.Pod)
	}
	if pod != nil {
		c.expectations.ObserveDeleted(pod)
	}
	c.enqueueController(obj)
}

// Run waits for the caches, then syncs ImoocPods with workers goroutines until ctx
// ends; then it shuts the queue down, waits for its workers and returns. This is what
// the manager's Start does for each controller. A pass under way when ctx ends shares
// its end, as in controller-runtime: its next request fails with "context canceled".
// Nothing is lost: the state is in the API server, and the next manager's first list
// brings every ImoocPod back to the queue.
func (c *Controller) Run(ctx context.Context, workers int) error {
	log := logr.FromContextOrDiscard(ctx).WithName(Name)
	ctx = logr.NewContext(ctx, log)
	// After ShutDown, Get hands out the keys still waiting, then returns shutdown=true,
	// which ends the workers' loops.
	defer c.queue.ShutDown()

	// A pass that read a half-filled cache would see pods missing and create them again.
	// TODO(6): Wait for the caches before the workers start.
	// No worker may start before every informer in c.cacheSynced has listed
	// its objects once; if ctx ends first, Run returns an error and starts
	// none. See "Waiting for the caches" in docs/lesson-12.md.

	log.Info("Starting workers", "count", workers)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for c.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	log.Info("Stopping workers: waiting for the passes under way")
	c.queue.ShutDown()
	wg.Wait()
	log.Info("Stopped workers")
	return nil
}

// processNextWorkItem takes one key from the queue, syncs it and tells the queue how the
// pass went. It returns false once the queue is shut down.
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	// TODO(5): Process one key of the work queue.
	// Take one key (false once the queue shuts down), sync it and tell the
	// queue the result: a failure retries with a backoff that grows per key,
	// a wait comes back after it, a success or a wait clears the key's
	// failures. Release the key whatever happens; count each result in
	// c.Syncs.
	// See "The work queue" in docs/lesson-12.md.
	return false
}
