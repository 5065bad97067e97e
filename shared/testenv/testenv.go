// Package testenv gives every stage the same integration test setup: one real API server
// per test package (envtest, started from the binaries `make binaries` built, at the
// first test that uses it), the module's CRDs and webhooks installed, the stage's
// manager running, a fresh namespace per test and a client that reads the API server
// directly rather than the manager's cache, so that a test sees what a user with kubectl
// would see.
//
// envtest runs etcd and kube-apiserver only: no scheduler, no kubelet, no garbage
// collector. Behaviour that needs them is shown on the embedded cluster instead
// (make lesson-N and the walkthroughs).
//
// Use it from TestMain:
//
//	var env *testenv.Env
//
//	func TestMain(m *testing.M) {
//		os.Exit(testenv.Run(m, testenv.Options{
//			Scheme: testenv.Scheme(appsv1.AddToScheme),
//			Setup:  func(mgr ctrl.Manager) error { ... },
//		}, &env))
//	}
//
// A package that tests a module's webhooks through the API server uses RunWebhooks
// instead, and the helpers beside it (WebhookNamespace, ClientWithWarnings, Causes, ...).
package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/onsi/gomega"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

// UnmanagedLabel hides an object from the test manager's cache. A test that drives
// Reconcile by hand labels its object with it so that the running manager leaves the
// object alone.
const UnmanagedLabel = "testenv.workshop.dev/unmanaged"

// Options describe what a test package needs from its environment.
type Options struct {
	// Scheme knows every type the tests and the manager use.
	Scheme *runtime.Scheme

	// CRDDirectoryPaths are the generated CRDs to install, relative to the test package;
	// when empty, the module's own (config/crd/bases of the go.mod's folder above the
	// package). A missing path is an error, not a silent empty cluster.
	CRDDirectoryPaths []string

	// WebhookPaths are the module's generated webhook configurations (config/webhook).
	// envtest points them at the test manager's webhook server over TLS.
	WebhookPaths []string

	// Setup registers the controllers and webhooks under test with the manager. When
	// nil, no manager runs and the tests drive the API server alone.
	Setup func(mgr ctrl.Manager) error

	// Cache is what the stage's cmd/main.go gives bootstrap.Options.Cache, so that the
	// test manager caches what the real one does. Objects labelled UnmanagedLabel are
	// left out of every kind's cache on top of it.
	Cache cache.Options
}

// Env is a test package's environment. It starts on the first call of one of its
// methods, not before the tests: a run whose tests need no API server (those of pure
// functions, such as the first tasks of a lesson) never waits for one. When it cannot
// start, the test that called panics with the reason, and the package's other tests do
// not run. A helper that waits (WaitForWebhooks, WaitForCache) starts it before the wait:
// a start of seconds inside a wait's first try would use up the wait's time.
type Env struct {
	opts Options
	once sync.Once
	err  error
	// stop stops what start started; nil until then.
	stop func() error

	config  *rest.Config
	etcdURL string
	client  client.Client
	manager ctrl.Manager
	ctx     context.Context
}

// Config reaches the API server as an administrator.
func (e *Env) Config() *rest.Config { e.use(); return e.config }

// Client reads and writes the API server directly, without a cache.
func (e *Env) Client() client.Client { e.use(); return e.client }

// Manager is the running manager, nil when Options.Setup is nil.
func (e *Env) Manager() ctrl.Manager { e.use(); return e.manager }

// Context returns a context that ends when the environment stops.
func (e *Env) Context() context.Context { e.use(); return e.ctx }

// Scheme is Options.Scheme. Unlike the methods above it starts nothing: a test of a pure
// function that needs only the scheme (to set an owner reference, say) waits for no API
// server.
func (e *Env) Scheme() *runtime.Scheme { return e.opts.Scheme }

// use starts the environment on its first call.
func (e *Env) use() {
	e.once.Do(func() { e.err = e.start() })
	if e.err != nil {
		panic(fmt.Errorf("testenv: %w", e.err))
	}
}

// Run stores in *env the environment opts describe, runs the package's tests, stops the
// environment if a test started it and returns the exit code for os.Exit.
func Run(m *testing.M, opts Options, env **Env) int {
	logf.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true), zap.Level(logLevel())))
	gomega.SetDefaultEventuallyTimeout(EventuallyTimeout)
	gomega.SetDefaultEventuallyPollingInterval(EventuallyInterval)

	// Missing binaries are said once, before any test, whether a test needs them or not:
	// it is a step of the setup the learner skipped.
	if _, err := BinaryAssetsDirectory(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: %v\n", err)
		return 1
	}
	e := &Env{opts: opts}
	*env = e
	code := m.Run()
	if e.stop == nil {
		return code
	}
	if err := e.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "testenv: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// start starts the API server, installs the CRDs and webhooks and starts the manager,
// and stores them in e, with the function that stops them.
func (e *Env) start() error {
	opts := e.opts
	assets, err := BinaryAssetsDirectory()
	if err != nil {
		return err
	}
	if len(opts.CRDDirectoryPaths) == 0 {
		root, err := moduleRoot()
		if err != nil {
			return err
		}
		opts.CRDDirectoryPaths = []string{filepath.Join(root, "config", "crd", "bases")}
	}
	te := &envtest.Environment{
		Scheme:                opts.Scheme,
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     opts.CRDDirectoryPaths,
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: opts.WebhookPaths},
	}
	// A real cluster refuses an OwnerReference with blockOwnerDeletion (which
	// SetControllerReference sets) from a user who may not update the owner's
	// finalizers subresource. envtest's API server checks that only when told to; without
	// it, a manager's role that lacks the grant passes every test and fails once deployed.
	te.ControlPlane.GetAPIServer().Configure().
		Append("enable-admission-plugins", "OwnerReferencesPermissionEnforcement")
	cleanLinks, err := dieWithTheTests(te, assets)
	if err != nil {
		return fmt.Errorf("preparing the API server: %w", err)
	}
	// On Linux, the kernel kills the control plane with the thread that started it
	// (dieWithTheTests): a goroutine locked to its thread starts it, and keeps the thread
	// until the control plane is stopped. Returning, still locked, ends the thread.
	type started struct {
		cfg *rest.Config
		err error
	}
	startedOn, release := make(chan started), make(chan struct{})
	go func() {
		goruntime.LockOSThread()
		cfg, err := te.Start()
		startedOn <- started{cfg, err}
		<-release
	}()
	stopControlPlane := func() error {
		err := te.Stop()
		close(release)
		cleanLinks()
		return err
	}
	s := <-startedOn
	if s.err != nil {
		return errors.Join(fmt.Errorf("starting the API server from %s: %w", assets, s.err), stopControlPlane())
	}
	cfg := s.cfg
	e.etcdURL = te.ControlPlane.Etcd.URL.String()
	if err := backdateEstablished(cfg, te.CRDs); err != nil {
		return errors.Join(err, stopControlPlane())
	}
	// Tests create many objects quickly; the default client limits (5 QPS) would make
	// them wait on the client instead of the controller.
	cfg.QPS, cfg.Burst = 500, 1000

	c, err := client.New(cfg, client.Options{Scheme: opts.Scheme})
	if err != nil {
		return errors.Join(err, stopControlPlane())
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.config, e.client, e.ctx = cfg, c, ctx

	done := make(chan error, 1)
	if opts.Setup != nil {
		mgr, err := newManager(cfg, opts, te.WebhookInstallOptions)
		if err == nil {
			err = opts.Setup(mgr)
		}
		if err != nil {
			cancel()
			return errors.Join(fmt.Errorf("setting up the manager: %w", err), stopControlPlane())
		}
		e.manager = mgr
		// envtest points the CRD of a convertible kind at the manager's webhook server,
		// whose /convert the API server then calls for every read in another version:
		// the server runs, whatever the stage registered, and the tests start once it
		// answers.
		converts := convertsThroughWebhook(te.CRDs)
		if converts {
			mgr.GetWebhookServer()
		}
		go func() { done <- mgr.Start(ctx) }()
		if !mgr.GetCache().WaitForCacheSync(ctx) {
			cancel()
			return errors.Join(errors.New("the manager's cache never synced"), <-done, stopControlPlane())
		}
		if converts {
			if err := waitForWebhookServer(ctx, mgr); err != nil {
				cancel()
				return errors.Join(err, <-done, stopControlPlane())
			}
		}
	} else {
		done <- nil
	}

	e.stop = func() error {
		cancel()
		return errors.Join(<-done, stopControlPlane())
	}
	return nil
}

func newManager(cfg *rest.Config, opts Options, wh envtest.WebhookInstallOptions) (ctrl.Manager, error) {
	cacheOpts, err := withoutUnmanaged(opts.Cache)
	if err != nil {
		return nil, err
	}
	return ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 opts.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  bootstrap.WithDefaults(cacheOpts),
		WebhookServer: bootstrap.NewWebhookServer(webhook.Options{
			Host:    wh.LocalServingHost,
			Port:    wh.LocalServingPort,
			CertDir: wh.LocalServingCertDir,
		}),
	})
}

// convertsThroughWebhook says whether a CRD of crds sends its conversions to a webhook.
func convertsThroughWebhook(crds []*apiextensionsv1.CustomResourceDefinition) bool {
	for _, crd := range crds {
		if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter {
			return true
		}
	}
	return false
}

// waitForWebhookServer waits until the manager's webhook server answers, for at most
// EventuallyTimeout.
func waitForWebhookServer(ctx context.Context, mgr ctrl.Manager) error {
	ctx, cancel := context.WithTimeout(ctx, EventuallyTimeout)
	defer cancel()
	ticker := time.NewTicker(EventuallyInterval)
	defer ticker.Stop()
	for {
		err := mgr.GetWebhookServer().StartedChecker()(nil)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the manager's webhook server, which serves the CRDs' conversions, never answered: %w", err)
		case <-ticker.C:
		}
	}
}

// withoutUnmanaged adds "not labelled UnmanagedLabel" to the cache's default label
// selector and to the selector of every kind that has its own: a kind's own selector
// replaces the default rather than adding to it.
func withoutUnmanaged(opts cache.Options) (cache.Options, error) {
	unmanaged, err := labels.NewRequirement(UnmanagedLabel, selection.DoesNotExist, nil)
	if err != nil {
		return opts, err
	}
	and := func(s labels.Selector) labels.Selector {
		if s == nil {
			s = labels.NewSelector()
		}
		return s.Add(*unmanaged)
	}
	opts.DefaultLabelSelector = and(opts.DefaultLabelSelector)
	byObject := make(map[client.Object]cache.ByObject, len(opts.ByObject))
	for obj, by := range opts.ByObject {
		if by.Label != nil {
			by.Label = and(by.Label)
		}
		byObject[obj] = by
	}
	opts.ByObject = byObject
	return opts, nil
}

// Namespace creates a namespace for one test and deletes it when the test ends. envtest
// has no namespace controller, so the namespace's objects stay behind, which is harmless:
// every test gets a new name.
func (e *Env) Namespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := e.Client().Create(e.Context(), ns); err != nil {
		t.Fatalf("creating a test namespace: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Client().Delete(context.Background(), ns); client.IgnoreNotFound(err) != nil {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

// BinaryAssetsDirectory finds etcd and kube-apiserver: $KUBEBUILDER_ASSETS when set,
// else .cache/bin/current at the top of the workshop (the folder that holds go.work).
func BinaryAssetsDirectory() (string, error) {
	dir := os.Getenv("KUBEBUILDER_ASSETS")
	if dir == "" {
		top, err := workshopRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(top, ".cache", "bin", "current")
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return "", fmt.Errorf("envtest binaries not found: no %s in %s; run `make binaries` "+
				"at the top of the workshop (see shared/TROUBLESHOOTING.md)", name, dir)
		}
	}
	return dir, nil
}

func workshopRoot() (string, error) {
	dir, err := folderAbove("go.work")
	if err != nil {
		return "", errors.New("envtest binaries not found: not inside the workshop (no go.work above " +
			"this folder) and KUBEBUILDER_ASSETS is not set")
	}
	return dir, nil
}

// moduleRoot returns the folder of the module under test: the nearest one above the
// test package that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := folderAbove("go.mod")
	if err != nil {
		return "", fmt.Errorf("no go.mod above the test package: %w", err)
	}
	return dir, nil
}

// folderAbove returns the nearest folder, from the current one up, that holds name.
func folderAbove(name string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s in this folder or above it", name)
		}
		dir = parent
	}
}

// Scheme returns a scheme that knows Kubernetes' own kinds (client-go's scheme) and the
// kinds each of add registers: a test package's API, as in Scheme(appsv1.AddToScheme).
func Scheme(add ...func(*runtime.Scheme) error) *runtime.Scheme {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	for _, f := range add {
		utilruntime.Must(f(scheme))
	}
	return scheme
}

// logLevel keeps test output to errors unless TESTENV_VERBOSE is set: the manager's
// logs are what a learner reads when a test fails, so `make check-N V=1` turns them on.
func logLevel() zapcore.Level {
	if os.Getenv("TESTENV_VERBOSE") != "" {
		return zapcore.DebugLevel
	}
	return zapcore.ErrorLevel
}

// How long Eventually waits, for every test that uses this environment. A pass takes
// milliseconds: every solution's tests, four packages at once on two cores, each with
// its own API server, passed within 2s but for the two whose waits have a clock of their
// own. 5s leaves more than twice that margin, and is what a learner waits for each task
// not done yet. A test that waits on a period of its own (a lease's retry, a poll every
// second) adds it with WithTimeout.
const (
	EventuallyTimeout  = 5 * time.Second
	EventuallyInterval = 50 * time.Millisecond
)
