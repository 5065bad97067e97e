package controller

import (
	"context"
	"os"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/12-clientgo/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/solutions/12-clientgo/internal/imoocpods"
)

// The envtest tests: a real API server (shared/testenv), the controller running as
// cmd/main.go runs it, and a client (env.Client()) that reads the API server directly.
// testenv starts no controller-runtime manager here (Options.Setup is nil): the tests
// start the client-go controller themselves.

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme: testenv.Scheme(appsv1.AddToScheme),
	}, &env))
}

var startOnce sync.Once

// running starts, once for the whole package, the controller the tests that follow the
// ImoocPod "from the outside" rely on, with two workers. It leaves alone the ImoocPods
// labelled testenv.UnmanagedLabel, which tests drive pass by pass with a controller of
// their own (newTestController).
func running(t *testing.T) {
	t.Helper()
	startOnce.Do(func() {
		c := newTestController(t, env.Config(), testControllerOptions{
			imoocPodSelector: "!" + testenv.UnmanagedLabel,
			startPods:        true,
			ctx:              env.Context(),
		})
		go func() {
			if err := c.Run(env.Context(), 2); err != nil {
				panic(err)
			}
		}()
	})
}

type testControllerOptions struct {
	// namespace limits the informers to one namespace; "" watches them all.
	namespace string
	// imoocPodSelector limits the ImoocPod informer to the ImoocPods it selects.
	imoocPodSelector string
	// startPods starts the pod informer; without it the pod cache stays empty for ever,
	// a cache that never shows the pass's creates.
	startPods bool
	// ctx bounds the informers; the test's own context when nil.
	ctx context.Context
}

// newTestController builds a controller the way cmd/main.go does, on cfg, starts its
// informers and waits for their caches. Its workers do not run: a test calls sync
// itself, or Run.
func newTestController(t *testing.T, cfg *rest.Config, opts testControllerOptions) *Controller {
	t.Helper()
	g := NewWithT(t)
	ctx := opts.ctx
	if ctx == nil {
		ctx = t.Context()
	}
	kube, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	dyn, err := dynamic.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())

	podInformers := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace(opts.namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = NameLabel }))
	podInformer := podInformers.Core().V1().Pods()
	imoocPodInformers := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, opts.namespace,
		func(o *metav1.ListOptions) { o.LabelSelector = opts.imoocPodSelector })
	imoocPodInformer, err := imoocpods.Informer(imoocPodInformers)
	g.Expect(err).NotTo(HaveOccurred())

	c, err := New(kube, imoocpods.NewClient(dyn), imoocPodInformer, podInformer)
	g.Expect(err).NotTo(HaveOccurred())
	imoocPodInformers.Start(ctx.Done())
	synced := []cache.InformerSynced{imoocPodInformer.HasSynced}
	if opts.startPods {
		podInformers.Start(ctx.Done())
		synced = append(synced, podInformer.Informer().HasSynced)
	}
	g.Expect(cache.WaitForCacheSync(ctx.Done(), synced...)).To(BeTrue(), "the test controller's caches should sync")
	return c
}
