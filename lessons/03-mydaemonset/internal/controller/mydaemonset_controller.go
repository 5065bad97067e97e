package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/flowcontrol"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/kube-workshop/operator-workshop/shared/batcherr"
	"github.com/kube-workshop/operator-workshop/shared/podcontrol"
	"github.com/kube-workshop/operator-workshop/shared/statuswrite"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/03-mydaemonset/api/apps/v1"
)

// MyDaemonSetLabel marks every pod a MyDaemonSet creates with the MyDaemonSet's name.
const MyDaemonSetLabel = "apps.workshop.dev/mydaemonset"

// maxBurst caps the creates, and the deletes, of one pass, as the DaemonSet controller
// does: a MyDaemonSet on 1000 new nodes should not flood the API server. The next pass,
// started by the pod events, does the rest.
const maxBurst = 500

// podNodeNameField indexes pods by the node they are bound to. The manager's cache
// answers it from the index SetupWithManager adds; the API server knows the same field
// selector, so a client that reads the API server directly answers it too.
const podNodeNameField = "spec.nodeName"

// MyDaemonSetReconciler runs one pod of every MyDaemonSet on each node that matches its
// node selector, and reports what it sees in the MyDaemonSet's status.
type MyDaemonSetReconciler struct {
	client.Client
	Scheme *runtime.Scheme

	// APIReader reads the API server directly. The manager caches only its own pods
	// (CacheOptions), so a pod of someone else that holds the name we want is read
	// through it.
	APIReader client.Reader

	// MaxConcurrentReconciles is how many different MyDaemonSets are reconciled at once;
	// 0 means 1.
	MaxConcurrentReconciles int

	// FailedPodBackoff spaces out the replacements of a node's failed pods. nil means
	// 1 second, doubling up to 15 minutes, as the DaemonSet controller's.
	FailedPodBackoff *flowcontrol.Backoff
	backoffOnce      sync.Once

	// expectations remembers the pods this controller created or deleted that the cache
	// does not show yet. A pod's name is fixed by its node, so a pass that misses a
	// create cannot make a second pod: the API server refuses the name. The expectations
	// save the requests such a pass would waste, and keep a pass that misses a delete
	// from spending the rolling budget again.
	expectations podcontrol.Expectations

	// statusWrites remembers the resourceVersion of each MyDaemonSet's last status
	// patch, until the cache shows it.
	statusWrites statuswrite.Tracker
}

// +kubebuilder:rbac:groups=apps.workshop.dev,resources=mydaemonsets,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps.workshop.dev,resources=mydaemonsets/status,verbs=get;update;patch
// Our pods point at their MyDaemonSet with blockOwnerDeletion (SetControllerReference
// sets it), which the API server allows only to who may update its finalizers.
// +kubebuilder:rbac:groups=apps.workshop.dev,resources=mydaemonsets/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;patch;delete
// TODO(12): Let the manager's role read the nodes.
// The manager's role lets it get, list and watch the nodes. See "Watching objects
// you do not own" in docs/lesson-03.md.

// Reconcile compares the nodes with the pods of one MyDaemonSet, creates and deletes the
// difference in one pass, and reports what it found in the status. It runs for every
// change of the MyDaemonSet, of its pods, and of a node that concerns it.
func (r *MyDaemonSetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (_ ctrl.Result, retErr error) {
	var mds appsv1.MyDaemonSet
	if err := r.Get(ctx, req.NamespacedName, &mds); err != nil {
		if apierrors.IsNotFound(err) {
			// The garbage collector deletes the pods through their OwnerReferences.
			r.expectations.Forget(req.NamespacedName)
			// The backoffs of its nodes expire; drop those that have.
			r.failedPodBackoff().GC()
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting MyDaemonSet: %w", err)
	}
	if !mds.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	// As in lesson 02: our status patches start no pass, so this one may read the
	// MyDaemonSet as it was before the last one, and compared with such a copy a status
	// that went back to what it was before that patch would never be written. A copy
	// older than our last status patch is read again from the API server.
	if r.statusWrites.Predates(&mds) {
		if err := r.APIReader.Get(ctx, req.NamespacedName, &mds); err != nil {
			// NotFound: deleted since the cache's copy, which is no error. Its delete event
			// brings the pass that finds it gone in the cache too.
			return ctrl.Result{}, client.IgnoreNotFound(fmt.Errorf("reading the MyDaemonSet from the API server: %w", err))
		}
	}

	orig := mds.DeepCopy()
	defer func() {
		if err := r.patchStatus(ctx, orig, &mds, retErr); err != nil {
			retErr = errors.Join(retErr, err)
		}
	}()

	return r.reconcilePods(ctx, &mds)
}

// reconcilePods lists the nodes and the pods, lets planPods decide, counts what it
// found into the status and carries the plan out.
func (r *MyDaemonSetReconciler) reconcilePods(ctx context.Context, mds *appsv1.MyDaemonSet) (ctrl.Result, error) {
	log := log.FromContext(ctx)

	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing nodes: %w", err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(mds.Namespace),
		client.MatchingLabels{MyDaemonSetLabel: mds.Name}); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing pods: %w", err)
	}
	plan := planPods(mds, nodes.Items, pods.Items)
	// The status says what the pass found, before its own writes: the events of those
	// writes start the next pass, which counts them.
	mds.Status.DesiredNumberScheduled = plan.desired
	mds.Status.CurrentNumberScheduled = plan.current
	mds.Status.UpdatedNumberScheduled = plan.updated
	mds.Status.NumberAvailable = plan.available

	if wait := r.expectations.Pending(mds, pods.Items); wait > 0 {
		log.V(1).Info("Waiting for the cache to show earlier creates and deletes", "timeout", wait)
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	backoff := r.holdBackFailedPods(ctx, mds, &plan, nodes.Items, pods.Items)

	// The creates, the removals and the replacements concern different nodes, so one
	// pass does all three. maxBurst caps the creates, and the deletes: removals first,
	// then replacements. The rolling budget spares the replacements of pods that are not
	// ready, which can be as many as there are nodes.
	// TODO(7): Carry out the plan.
	// One pass creates the pods of plan.create and deletes plan.remove and plan.replace,
	// at most maxBurst creates and maxBurst deletes (removals first); an error in one
	// list stops none of the others. Taken pod names are a terminal error when they are
	// the only error, else joined with the others as a plain one, so that those are
	// retried. See "Carrying out the plan" in docs/lesson-03.md.
	return ctrl.Result{RequeueAfter: backoff}, nil
}

// holdBackFailedPods keeps a node's failed pod out of plan.remove while the node is in
// backoff, and returns when the first such backoff ends (0 when none is held back). A
// pod that fails again and again (a kubelet that rejects it, a container that cannot
// start) would otherwise be deleted and created again in a hot loop, as fast as the
// events come. Each replacement doubles the node's wait, up to the cap; a ready pod on
// the node resets it. The failed pod keeps its name meanwhile, so the node gets no
// second pod. Only a node that should keep its pod has a backoff: the failed pod of a
// node that is gone, no longer matches or evicts it goes at once. This follows
// failedPodsBackoff in the DaemonSet controller.
func (r *MyDaemonSetReconciler) holdBackFailedPods(ctx context.Context, mds *appsv1.MyDaemonSet, plan *daemonPlan,
	nodes []corev1.Node, pods []corev1.Pod) time.Duration {
	backoff := r.failedPodBackoff()
	now := backoff.Clock.Now()
	keeping := map[string]bool{}
	for i := range nodes {
		keeping[nodes[i].Name] = nodeMatches(mds, &nodes[i]) && podMayStay(mds, &nodes[i])
	}
	for i := range pods {
		if pod := &pods[i]; metav1.IsControlledBy(pod, mds) && podcontrol.IsPodReady(pod) {
			backoff.Reset(failedPodBackoffKey(mds, pod.Spec.NodeName))
		}
	}
	var wait time.Duration
	plan.remove = slices.DeleteFunc(plan.remove, func(pod *corev1.Pod) bool {
		if pod.Status.Phase != corev1.PodFailed || !keeping[pod.Spec.NodeName] {
			return false
		}
		key := failedPodBackoffKey(mds, pod.Spec.NodeName)
		if backoff.IsInBackOffSinceUpdate(key, now) {
			// The backoff does not say when it started; waiting all of it again
			// comes back late at worst, as the DaemonSet controller does.
			delay := backoff.Get(key)
			log.FromContext(ctx).V(1).Info("Keeping a failed pod until its node's backoff ends", "pod", pod.Name,
				"node", pod.Spec.NodeName, "backoff", delay)
			if wait == 0 || delay < wait {
				wait = delay
			}
			return true
		}
		backoff.Next(key, now)
		return false
	})
	return wait
}

// failedPodBackoffKey names the backoff of one node of one MyDaemonSet.
func failedPodBackoffKey(mds *appsv1.MyDaemonSet, node string) string {
	return string(mds.UID) + "/" + node
}

// failedPodBackoff returns FailedPodBackoff, made on first use when it is nil.
func (r *MyDaemonSetReconciler) failedPodBackoff() *flowcontrol.Backoff {
	r.backoffOnce.Do(func() {
		if r.FailedPodBackoff == nil {
			r.FailedPodBackoff = flowcontrol.NewBackOff(time.Second, 15*time.Minute)
		}
	})
	return r.FailedPodBackoff
}

// createPods creates the pods of nodes in growing batches and records each one as
// expected. A pod that already exists is no error when it is ours: the cache had not
// shown it yet, and that pod is the one to expect. A node whose pod name someone else
// holds is skipped, so that the nodes after it still get their pods, and returned in
// taken: retrying cannot free that name. err holds what a retry can fix, among it the
// names that pods of an earlier MyDaemonSet of the same name still hold until the
// garbage collector deletes them.
func (r *MyDaemonSetReconciler) createPods(ctx context.Context, mds *appsv1.MyDaemonSet, nodes []*corev1.Node) (taken, err error) {
	log := log.FromContext(ctx)
	log.Info("Creating pods", "count", len(nodes))
	var (
		mu             sync.Mutex
		takenBy, oldBy []error
		skipped        int
	)
	created, err := podcontrol.SlowStart(len(nodes), func(i int) error {
		pod, err := r.newDaemonPod(mds, nodes[i])
		if err != nil {
			return err
		}
		err = r.Create(ctx, pod)
		if apierrors.IsAlreadyExists(err) {
			var held *corev1.Pod
			held, err = r.checkOwnPod(ctx, mds, pod)
			var collision *nameTakenError
			if errors.As(err, &collision) {
				log.Info("Skipped a node whose pod name is held by another pod", "node", nodes[i].Name,
					"pod", pod.Name, "holder", collision.holder)
				mu.Lock()
				defer mu.Unlock()
				skipped++
				if collision.earlierSelf {
					oldBy = append(oldBy, collision)
				} else {
					takenBy = append(takenBy, collision)
				}
				return nil
			}
			// Ours: the pod to expect is the one that holds the name. The one sent has no
			// UID, which no pod in the cache ever has: every pass would wait for it until
			// the expectations time out, and no node would get a pod meanwhile.
			pod = held
		}
		if err != nil {
			return err
		}
		r.expectations.ExpectCreate(mds, pod)
		return nil
	})
	log.Info("Created pods", "created", created-skipped, "skipped", skipped, "wanted", len(nodes))
	if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
		// The namespace is being deleted: it accepts no new pod, and its deletion takes
		// the MyDaemonSet too. Nothing to retry, as for the DaemonSet controller.
		return nil, nil
	}
	if err != nil {
		err = fmt.Errorf("creating pods: %w", err)
	}
	// Like the errors of the creates, the collisions are counted, with only the first of
	// them in the message (batcherr.Join): one per node would not fit in the
	// Ready condition. Sorted, the same collisions make the same message on every pass,
	// and an idle pass writes no status.
	return batcherr.Join(takenBy, len(nodes)), errors.Join(err, batcherr.Join(oldBy, len(nodes)))
}

// nameTakenError says that the pod name of a node is held by a pod mds does not control.
type nameTakenError struct {
	node, pod, holder string
	// earlierSelf is true when the holder is controlled by an earlier MyDaemonSet of the
	// same name, deleted and created again: the garbage collector is about to delete it.
	earlierSelf bool
}

func (e *nameTakenError) Error() string {
	if e.earlierSelf {
		return fmt.Sprintf("node %s: the pod name %s is still held by a pod of %s; "+
			"waiting for the garbage collector to delete it", e.node, e.pod, e.holder)
	}
	return fmt.Sprintf("node %s: the pod name %s is taken by a pod this MyDaemonSet does not control (%s); "+
		"rename the MyDaemonSet or delete that pod", e.node, e.pod, e.holder)
}

// checkOwnPod is called when the pod's name is taken. It returns the holder when it is
// ours (the cache had not shown it yet, or does not show it until adoptPod has labelled
// it), and a *nameTakenError when it is not. Two
// MyDaemonSets of one namespace can want the same name ("a" on node "b-c" and "a-b" on
// node "c"), or someone else's pod can hold it; retrying cannot fix that, renaming the
// MyDaemonSet can. A pod controlled by a MyDaemonSet of the same name but another UID is
// left over from an earlier MyDaemonSet of that name: that one only needs time. The holder
// is read from the API server: the cache holds only the manager's own pods.
func (r *MyDaemonSetReconciler) checkOwnPod(ctx context.Context, mds *appsv1.MyDaemonSet, pod *corev1.Pod) (*corev1.Pod, error) {
	var existing corev1.Pod
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(pod), &existing); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("the pod name %s was taken and is free again: retrying", pod.Name)
		}
		return nil, fmt.Errorf("reading the pod that holds the name %s: %w", pod.Name, err)
	}
	if metav1.IsControlledBy(&existing, mds) {
		return &existing, r.adoptPod(ctx, mds, &existing)
	}
	taken := &nameTakenError{node: pod.Spec.NodeName, pod: pod.Name, holder: "no controller"}
	if owner := metav1.GetControllerOf(&existing); owner != nil {
		taken.holder = fmt.Sprintf("%s %s, uid %s", owner.Kind, owner.Name, owner.UID)
		gv, _ := schema.ParseGroupVersion(owner.APIVersion)
		taken.earlierSelf = gv.Group == appsv1.GroupVersion.Group && owner.Kind == "MyDaemonSet" && owner.Name == mds.Name
	}
	return nil, taken
}

// adoptPod gives a pod that mds controls the label MyDaemonSetLabel=<mds's name> when it
// lacks it: a pod made by an older manager, or relabelled by hand. The manager's cache
// selects on that label, so without it the pod never shows up there, the expectation
// of its create is never met, and the node waits out the expectations' timeout again and
// again. The OwnerReference already says the pod is ours; the label only makes the cache
// agree. The patch sends that one label, so it changes nothing else of the pod.
func (r *MyDaemonSetReconciler) adoptPod(ctx context.Context, mds *appsv1.MyDaemonSet, pod *corev1.Pod) error {
	if pod.Labels[MyDaemonSetLabel] == mds.Name {
		return nil
	}
	patch := client.MergeFrom(pod.DeepCopy())
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[MyDaemonSetLabel] = mds.Name
	if err := r.Patch(ctx, pod, patch); err != nil {
		return fmt.Errorf("labelling our pod %s, which lacks %s: %w", pod.Name, MyDaemonSetLabel, err)
	}
	log.FromContext(ctx).Info("Adopted a pod that lacked our label", "pod", pod.Name, "node", pod.Spec.NodeName)
	return nil
}

// newDaemonPod returns the pod mds runs on node, bound to it, labelled with the
// MyDaemonSet's name (which is also what the manager's cache selects) and controlled by it.
func (r *MyDaemonSetReconciler) newDaemonPod(mds *appsv1.MyDaemonSet, node *corev1.Node) (*corev1.Pod, error) {
	// TODO(6): Build the pod of a node.
	// Return the pod mds runs on node: named after the node, in mds's namespace,
	// labelled MyDaemonSetLabel=<mds's name>, with the container and the tolerations of
	// every pod of mds, bound to the node, and controlled by mds. See "Binding a pod to
	// its node: `nodeName` or affinity" in docs/lesson-03.md.
	return nil, errors.New("newDaemonPod is not written yet")
}

// daemonContainer returns the container every pod of mds runs.
func daemonContainer(mds *appsv1.MyDaemonSet) corev1.Container {
	return corev1.Container{Name: "app", Image: mds.Spec.Image}
}

// daemonTolerations are the tolerations of every pod of mds: spec.tolerations, and those
// the DaemonSet controller gives its pods for the taints the node lifecycle controller
// puts on a node in trouble (AddOrUpdateDaemonPodTolerations in k8s.io/kubernetes
// pkg/controller/daemon/util). The node needs its daemons most then.
//
//   - not-ready and unreachable, NoExecute: the API server gives every other pod a
//     300-second toleration of those, after which it is evicted. Ours stay for good.
//   - memory, disk and PID pressure, NoSchedule: a node under pressure still gets its
//     pod, a new one or a replacement.
//
// Two of the DaemonSet's are left out. network-unavailable it gives only to pods on the
// host's network: a pod on the pod network cannot start before the node's network is up,
// and ours never use the host's. unschedulable, the taint of a cordon, it gives to all:
// here a cordoned node loses its pod instead (nodeMatches).
func daemonTolerations(mds *appsv1.MyDaemonSet) []corev1.Toleration {
	tolerate := func(key string, effect corev1.TaintEffect) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	}
	return append(slices.Clone(mds.Spec.Tolerations),
		tolerate(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute),
		tolerate(corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute),
		tolerate(corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule),
		tolerate(corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule),
		tolerate(corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule),
	)
}

// deletePods deletes pods in parallel and records each one as expected to go. The UID
// precondition makes sure the delete hits the pod the pass looked at, never a newer pod
// that took its name.
func (r *MyDaemonSetReconciler) deletePods(ctx context.Context, mds *appsv1.MyDaemonSet, pods []*corev1.Pod) error {
	deleted, err := podcontrol.InParallel(len(pods), func(i int) error {
		pod := pods[i]
		err := r.Delete(ctx, pod, client.Preconditions{UID: &pod.UID})
		// NotFound or a UID conflict: that pod is gone already.
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return err
		}
		r.expectations.ExpectDelete(mds, pod)
		return nil
	})
	log.FromContext(ctx).Info("Deleted pods", "deleted", deleted, "wanted", len(pods))
	if err != nil {
		return fmt.Errorf("deleting pods: %w", err)
	}
	return nil
}

// SetupWithManager starts the controller. It reconciles a MyDaemonSet when its spec
// changes (For), when one of its pods changes (Owns), and when a node that concerns it
// changes (Watches, through mydaemonsetsForNode).
func (r *MyDaemonSetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	// mydaemonsetsForNode looks up the pods of a node; the index answers that from the
	// cache without reading every pod.
	err := mgr.GetFieldIndexer().IndexField(context.Background(), &corev1.Pod{}, podNodeNameField,
		func(obj client.Object) []string {
			pod, ok := obj.(*corev1.Pod)
			if !ok || pod.Spec.NodeName == "" {
				return nil
			}
			return []string{pod.Spec.NodeName}
		})
	if err != nil {
		return fmt.Errorf("indexing pods by node: %w", err)
	}
	// TODO(11): Watch the nodes.
	// Every node event that matters (task 9) starts a pass of each MyDaemonSet the node
	// concerns (task 10). See "Watching objects you do not own" in docs/lesson-03.md.
	return ctrl.NewControllerManagedBy(mgr).
		For(&appsv1.MyDaemonSet{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&corev1.Pod{}, builder.WithPredicates(daemonPodChangedPredicate())).
		WithEventFilter(r.expectations.DeletionObserver()).
		WithOptions(controller.Options{MaxConcurrentReconciles: r.MaxConcurrentReconciles}).
		Named("mydaemonset").
		Complete(r)
}
