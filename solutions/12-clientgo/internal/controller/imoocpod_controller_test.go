package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/12-clientgo/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/solutions/12-clientgo/internal/imoocpods"
)

// The unit tests of the controller, in kubernetes/sample-controller's style: fake
// clientsets record every request a pass sends, the informers' caches are filled by hand
// (the informers never run), and each test compares the requests with what the pass
// should send. No API server runs, so they say quickly which request is missing or extra.

// fixture is one controller over fake clientsets, and what its caches hold.
type fixture struct {
	t       *testing.T
	kube    *kubefake.Clientset
	dynamic *dynamicfake.FakeDynamicClient
	c       *Controller

	imoocPodCache cache.Indexer
	podCache      cache.Indexer
}

// newFixture returns a controller whose caches and fake API hold imoocPod and pods.
func newFixture(t *testing.T, imoocPod *appsv1.ImoocPod, pods ...*corev1.Pod) *fixture {
	t.Helper()
	f := &fixture{t: t}
	var kubeObjects []runtime.Object
	for _, pod := range pods {
		kubeObjects = append(kubeObjects, pod)
	}
	f.kube = kubefake.NewClientset(kubeObjects...)
	// The fake API server does not generate names: play its part for generateName.
	var generated int
	f.kube.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		pod := action.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			generated++
			pod.Name = fmt.Sprintf("%s%05d", pod.GenerateName, generated)
		}
		return false, nil, nil
	})
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var dynamicObjects []runtime.Object
	if imoocPod != nil {
		dynamicObjects = append(dynamicObjects, toUnstructured(t, imoocPod))
	}
	f.dynamic = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme,
		map[schema.GroupVersionResource]string{imoocpods.Resource: "ImoocPodList"}, dynamicObjects...)

	podInformer := informers.NewSharedInformerFactory(f.kube, 0).Core().V1().Pods()
	imoocPodInformer := cache.NewSharedIndexInformer(&cache.ListWatch{}, &appsv1.ImoocPod{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	c, err := New(f.kube, imoocpods.NewClient(f.dynamic), imoocPodInformer, podInformer)
	if err != nil {
		t.Fatal(err)
	}
	f.c = c
	f.imoocPodCache = imoocPodInformer.GetIndexer()
	f.podCache = podInformer.Informer().GetIndexer()
	if imoocPod != nil {
		f.must(f.imoocPodCache.Add(imoocPod))
	}
	for _, pod := range pods {
		f.must(f.podCache.Add(pod))
	}
	return f
}

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// sync runs one pass for key and returns its wait. It fails the test, saying what, unless
// the pass succeeded.
func (f *fixture) sync(key types.NamespacedName, what string) time.Duration {
	f.t.Helper()
	wait, err := f.c.sync(context.Background(), key)
	NewWithT(f.t).Expect(testenv.ErrorText(err)).To(BeEmpty(), what)
	return wait
}

// next runs one processNextWorkItem and returns what it returned. The queue holds a key
// back until the pass that took it calls Done: a pass that skips Done leaves the next Get
// of that key waiting forever, so next fails the test after a few seconds instead of
// leaving it to go test's -timeout.
func (f *fixture) next(ctx context.Context) bool {
	f.t.Helper()
	returned := make(chan bool, 1)
	go func() { returned <- f.c.processNextWorkItem(ctx) }()
	select {
	case more := <-returned:
		return more
	case <-time.After(5 * time.Second):
		f.t.Fatal("processNextWorkItem did not return within 5s: the queue holds a key back " +
			"until the pass that took it calls queue.Done(key)")
		return false
	}
}

// writes returns the requests of both fake clients that change something, in order
// per client, as "verb resource[/subresource] name" lines; clear forgets them.
func (f *fixture) writes() []string {
	var out []string
	for _, a := range append(f.kube.Actions(), f.dynamic.Actions()...) {
		if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		what := a.GetResource().Resource
		if a.GetSubresource() != "" {
			what += "/" + a.GetSubresource()
		}
		out = append(out, a.GetVerb()+" "+what)
	}
	return out
}

func (f *fixture) clear() {
	f.kube.ClearActions()
	f.dynamic.ClearActions()
}

// createdPods returns the pods the pass sent to the fake API server.
func (f *fixture) createdPods() []*corev1.Pod {
	var pods []*corev1.Pod
	for _, a := range f.kube.Actions() {
		if create, ok := a.(clienttesting.CreateAction); ok && a.GetResource().Resource == "pods" {
			pods = append(pods, create.GetObject().(*corev1.Pod))
		}
	}
	return pods
}

// created names the i-th pod the pass created in a message. The fake API server records
// a create as it was sent, before its reactor names the pod: a pod made with a
// generateName has no name there.
func created(pod *corev1.Pod, i int) string {
	if pod.Name != "" {
		return pod.Name
	}
	return fmt.Sprintf("%s<generated> (#%d created)", pod.GenerateName, i+1)
}

// deletedPods returns the names of the pods the pass deleted.
func (f *fixture) deletedPods() []string {
	var names []string
	for _, a := range f.kube.Actions() {
		if del, ok := a.(clienttesting.DeleteAction); ok && a.GetResource().Resource == "pods" {
			names = append(names, del.GetName())
		}
	}
	return names
}

// patchedStatus returns the status the last status patch sent, or nil without one.
func (f *fixture) patchedStatus() map[string]any {
	var status map[string]any
	for _, a := range f.dynamic.Actions() {
		patch, ok := a.(clienttesting.PatchAction)
		if !ok || a.GetSubresource() != "status" {
			continue
		}
		var body map[string]any
		f.must(json.Unmarshal(patch.GetPatch(), &body))
		status, _ = body["status"].(map[string]any)
	}
	return status
}

func TestPodEventsEnqueueTheirController(t *testing.T) {
	ip := unitImoocPod("web", 1)
	owned := unitPod(ip, "web-a", 1, false)
	withOwner := func(name string, change func(*metav1.OwnerReference)) *corev1.Pod {
		pod := owned.DeepCopy()
		pod.Name = name
		change(&pod.OwnerReferences[0])
		return pod
	}
	orphan := owned.DeepCopy()
	orphan.OwnerReferences = nil
	tests := []struct {
		name  string
		event func(c *Controller)
		want  []string
	}{
		{"a pod the ImoocPod controls", func(c *Controller) { c.enqueueController(owned) }, []string{"ns/web"}},
		{"a pod with our label and no controller", func(c *Controller) { c.enqueueController(orphan) }, nil},
		{"a pod a ReplicaSet controls", func(c *Controller) {
			c.enqueueController(withOwner("rs-a", func(r *metav1.OwnerReference) { r.APIVersion, r.Kind = "apps/v1", "ReplicaSet" }))
		}, nil},
		{"a pod an ImoocPod of another group controls", func(c *Controller) {
			c.enqueueController(withOwner("other-a", func(r *metav1.OwnerReference) { r.APIVersion = "example.com/v1" }))
		}, nil},
		{"a pod owned, not controlled", func(c *Controller) {
			c.enqueueController(withOwner("owned-a", func(r *metav1.OwnerReference) { r.Controller = nil }))
		}, nil},
		{"a delete the informer missed (a tombstone)", func(c *Controller) {
			c.enqueueController(cache.DeletedFinalStateUnknown{Key: "ns/web-a", Obj: owned})
		}, []string{"ns/web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			f := newFixture(t, nil)
			tt.event(f.c)
			g.Expect(queued(f.c)).To(Equal(tt.want), "the keys queued for %s", tt.name)
		})
	}

	t.Run("a pod moved from one ImoocPod to another", func(t *testing.T) {
		g := NewWithT(t)
		f := newFixture(t, nil)
		moved := withOwner("web-a", func(r *metav1.OwnerReference) { r.Name, r.UID = "db", "uid-db" })
		f.c.updatePod(owned, moved)
		g.Expect(queued(f.c)).To(ConsistOf("ns/web", "ns/db"), "both ImoocPods must count their pods again")
	})
}

func TestImoocPodUpdatesEnqueueSpecChangesAndNewObjects(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 1)
	f := newFixture(t, nil)

	statusOnly := ip.DeepCopy()
	statusOnly.Status.Replicas = 1
	f.c.updateImoocPod(ip, statusOnly)
	g.Expect(queued(f.c)).To(BeEmpty(), "a status patch (the generation did not move) should start no pass")

	scaled := ip.DeepCopy()
	scaled.Generation++
	f.c.updateImoocPod(ip, scaled)
	g.Expect(queued(f.c)).To(Equal([]string{"ns/web"}), "a spec change should start a pass")

	// An informer that missed a delete and a create of the same name learns of both when
	// it lists again, as one update: another object, at the same first generation.
	recreated := ip.DeepCopy()
	recreated.UID = "uid-web-2"
	f.c.updateImoocPod(ip, recreated)
	g.Expect(queued(f.c)).To(Equal([]string{"ns/web"}), "an ImoocPod deleted and created again under the same name "+
		"(another UID, the same generation) is a new object, and needs its first pass")
}

func TestSyncDeletesTheSurplusNotReadyFirst(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 1)
	f := newFixture(t, ip,
		unitPod(ip, "web-old-ready", 1, true),
		unitPod(ip, "web-old-starting", 2, false),
		unitPod(ip, "web-new-starting", 3, false))

	f.sync(keyOf(ip), "the pass's error")

	g.Expect(f.deletedPods()).To(ConsistOf("web-old-starting", "web-new-starting"),
		"one pass should delete the 2 surplus pods, not ready ones first")
	g.Expect(f.createdPods()).To(BeEmpty())
}

// The informers never run in these tests: the pod cache never shows a create, like a
// cache that lags behind.
func TestSyncWaitsForTheCacheToShowItsCreates(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 3)
	f := newFixture(t, ip)

	f.sync(keyOf(ip), "the error of the first pass")
	g.Expect(f.createdPods()).To(HaveLen(3), "the first pass creates the 3 pods")
	f.clear()

	wait := f.sync(keyOf(ip), "the error of the second pass")
	g.Expect(f.createdPods()).To(BeEmpty(), "the second pass should wait for the cache to show the first pass's "+
		"creates (expectations), not create them again")
	g.Expect(wait).To(BeNumerically(">", 0), "a pass that waits for the cache should say how long (RequeueAfter)")
}

func TestIdleSyncSendsNothing(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 2)
	f := newFixture(t, ip, unitPod(ip, "web-a", 1, true), unitPod(ip, "web-b", 2, true))
	f.sync(keyOf(ip), "the error of the first pass")
	g.Expect(f.writes()).To(Equal([]string{"patch imoocpods/status"}), "the first pass finds the pods and reports them")

	// Let the cache show the status the first pass wrote, as its update event would.
	written, err := f.dynamic.Resource(imoocpods.Resource).Namespace(ip.Namespace).Get(context.Background(), ip.Name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	var updated appsv1.ImoocPod
	g.Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(written.Object, &updated)).To(Succeed())
	f.must(f.imoocPodCache.Update(&updated))
	f.clear()

	f.sync(keyOf(ip), "the error of the second pass")
	g.Expect(f.writes()).To(BeEmpty(), "a pass with nothing to do should send nothing, not even the status it found unchanged")
}

func TestSyncOfAnImoocPodThatIsGoneSendsNothing(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(t, nil)

	wait := f.sync(types.NamespacedName{Namespace: "ns", Name: "gone"}, "NotFound means the ImoocPod was deleted and its pods go with it: "+
		"an error would retry a name that never comes back")
	g.Expect(wait).To(BeZero())
	g.Expect(f.writes()).To(BeEmpty())
}

// The cache may still show an ImoocPod, as it was before our last status patch, that
// someone has deleted since: the read from the API server finds nothing, and the pass is
// done, as when the cache finds nothing. Its delete event reaches the cache soon after.
func TestSyncOfAnImoocPodDeletedBehindAStaleCacheSendsNothing(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 1)
	ip.ResourceVersion = "1"
	f := newFixture(t, ip)
	patched := ip.DeepCopy()
	patched.ResourceVersion = "2"
	f.c.statusWrites.Wrote(patched)
	f.must(f.dynamic.Resource(imoocpods.Resource).Namespace(ip.Namespace).Delete(context.Background(), ip.Name, metav1.DeleteOptions{}))
	f.clear()

	wait := f.sync(keyOf(ip), "the cache's copy predates the last status patch, and the ImoocPod is gone from the API "+
		"server: NotFound there means it was deleted, as NotFound in the cache does, not that the pass failed")
	g.Expect(wait).To(BeZero())
	g.Expect(f.writes()).To(BeEmpty(), "the pass trusted a stale copy: the cache's ImoocPod predates your last status "+
		"patch (c.statusWrites.Predates), and a pass on it acts for an ImoocPod the API server no longer has; read it again")
}

func TestSyncCreatesTheWholeDifferenceInOnePass(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 5)
	f := newFixture(t, ip)

	wait := f.sync(keyOf(ip), "the pass's error")

	g.Expect(wait).To(BeZero(), "a pass that creates pods should not ask to wait")
	g.Expect(f.writes()).To(Equal([]string{
		"create pods", "create pods", "create pods", "create pods", "create pods", "patch imoocpods/status",
	}), "one pass should create the 5 missing pods, then patch the status once")
	for i, pod := range f.createdPods() {
		g.Expect(pod.Labels).To(HaveKeyWithValue(NameLabel, "web"), "pod %s should carry the %s label", created(pod, i), NameLabel)
		g.Expect(describeRef(metav1.GetControllerOf(pod))).To(Equal("ImoocPod/web uid uid-web controller=true blockOwnerDeletion=true"),
			"pod %s should have a controller OwnerReference to the ImoocPod (metav1.NewControllerRef)", created(pod, i))
	}
	status := f.patchedStatus()
	g.Expect(status).To(HaveKeyWithValue("observedGeneration", BeNumerically("==", 1)), "the patch should set observedGeneration")
	g.Expect(status).NotTo(HaveKey("replicas"), "the pass found no pods: status.replicas stays unset (0)")
}

func TestProcessNextWorkItemRetriesAFailedSyncWithBackoff(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 1)
	f := newFixture(t, ip, unitPod(ip, "web-a", 1, true))
	failing := true
	f.dynamic.PrependReactor("patch", "imoocpods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failing {
			return true, nil, errors.New("the API server is unavailable")
		}
		return false, nil, nil
	})
	key := keyOf(ip)
	ctx := context.Background()

	f.c.queue.Add(key)
	g.Expect(f.next(ctx)).To(BeTrue(), "processNextWorkItem should return true while the queue runs")
	g.Expect(f.c.Syncs.Errors.Load()).To(BeEquivalentTo(1), "the failed pass should count as an error")
	g.Expect(f.c.queue.NumRequeues(key)).To(Equal(1), "a failed pass should requeue its key with backoff (AddRateLimited)")

	failing = false
	g.Expect(f.next(ctx)).To(BeTrue(), "the key should come back after its backoff")
	g.Expect(f.c.Syncs.Successes.Load()).To(BeEquivalentTo(1), "the second pass should succeed")
	g.Expect(f.c.queue.NumRequeues(key)).To(BeZero(), "a successful pass should Forget the key's failures")
	g.Expect(f.c.queue.Len()).To(BeZero(), "a successful pass should not requeue")

	f.c.queue.ShutDown()
	g.Expect(f.next(ctx)).To(BeFalse(), "processNextWorkItem should return false once the queue is shut down")
}

func TestProcessNextWorkItemWaitsWhenSyncAsksTo(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 2)
	f := newFixture(t, ip)
	key := keyOf(ip)
	ctx := context.Background()

	f.c.queue.Add(key)
	g.Expect(f.next(ctx)).To(BeTrue())
	g.Expect(f.c.Syncs.Successes.Load()).To(BeEquivalentTo(1), "the pass that creates the pods succeeds")
	// The cache never shows the creates: the next pass waits for it.
	f.c.queue.Add(key)
	g.Expect(f.next(ctx)).To(BeTrue())
	g.Expect(f.c.Syncs.RequeueAfter.Load()).To(BeEquivalentTo(1), "a pass that waits for the cache should count as requeue_after")
	g.Expect(f.c.queue.Len()).To(BeZero(), "the key should come back only after the wait (AddAfter), not at once")
	g.Expect(f.c.queue.NumRequeues(key)).To(BeZero(), "waiting is no failure: no backoff")
}

// Run must not start a worker before the caches are synced. Here they never are: the
// informers are not started.
func TestRunWaitsForTheCachesAndStopsWithItsContext(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 2)
	f := newFixture(t, ip)
	f.c.queue.Add(keyOf(ip))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.c.Run(ctx, 2) }()

	g.Consistently(func() []*corev1.Pod { return f.createdPods() }, "300ms").Should(BeEmpty(),
		"no pass should run before the caches are synced (cache.WaitForNamedCacheSyncWithContext)")
	cancel()
	var err error
	g.Eventually(done).Should(Receive(&err), "Run should return once its context ends")
	g.Expect(err).To(MatchError(ContainSubstring("caches")),
		"Run should fail when it stops before the caches are synced")
}

func TestRunStopsItsWorkersWhenItsContextEnds(t *testing.T) {
	g := NewWithT(t)
	ip := unitImoocPod("web", 2)
	f := newFixture(t, ip)
	ctx, cancel := context.WithCancel(context.Background())
	// The informers of the fixture never run: mark them synced.
	f.c.cacheSynced = []cache.InformerSynced{func() bool { return true }}
	done := make(chan error, 1)
	go func() { done <- f.c.Run(ctx, 2) }()

	f.c.queue.Add(keyOf(ip))
	g.Eventually(func() int { return len(f.createdPods()) }).Should(Equal(2), "a worker should sync the queued ImoocPod")
	cancel()
	var err error
	g.Eventually(done).Should(Receive(&err), "Run should return once its context ends (SIGTERM in cmd/main.go)")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(f.c.queue.ShuttingDown()).To(BeTrue(), "Run should shut the queue down")
}

// unitImoocPod returns an ImoocPod in namespace ns as the cache holds it: typed, with a
// UID and its first generation.
func unitImoocPod(name string, replicas int32) *appsv1.ImoocPod {
	return &appsv1.ImoocPod{
		TypeMeta: metav1.TypeMeta{APIVersion: appsv1.GroupVersion.String(), Kind: "ImoocPod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: name, UID: types.UID("uid-" + name), Generation: 1,
		},
		Spec: appsv1.ImoocPodSpec{Replicas: ptr.To(replicas), Image: "registry.k8s.io/pause:3.10"},
	}
}

// unitPod returns a running pod that owner controls, created minutes after the epoch.
func unitPod(owner *appsv1.ImoocPod, name string, minutes int, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: owner.Namespace, Name: name,
			Labels:            map[string]string{NameLabel: owner.Name},
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.GroupVersion.WithKind("ImoocPod"))},
			CreationTimestamp: metav1.NewTime(time.Unix(0, 0).Add(time.Duration(minutes) * time.Minute)),
		},
		Status: corev1.PodStatus{
			Phase:      corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}},
		},
	}
}

func keyOf(ip *appsv1.ImoocPod) types.NamespacedName {
	return types.NamespacedName{Namespace: ip.Namespace, Name: ip.Name}
}

// queued empties the queue and returns its keys, in order.
func queued(c *Controller) []string {
	var keys []string
	for c.queue.Len() > 0 {
		key, _ := c.queue.Get()
		keys = append(keys, key.String())
		c.queue.Done(key)
	}
	return keys
}

func toUnstructured(t *testing.T, ip *appsv1.ImoocPod) *unstructured.Unstructured {
	t.Helper()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ip)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}
