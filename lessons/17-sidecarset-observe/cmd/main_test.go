package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

// The API server calls the manager at every path of the webhook configurations
// (config/webhook/manifests.yaml): setup must serve each of them, and make the manager
// ready only once their server answers. The manager is never started: setup only
// registers, and nothing here calls the API server its configuration names.
func TestSetupServesEveryConfiguredWebhook(t *testing.T) {
	g := NewWithT(t)
	mgr := newManager(g)
	checks := &readyChecks{Manager: mgr, added: map[string]healthz.Checker{}}
	g.Expect(flags{managerNamespace: "sidecarset-system"}.setup(checks)).To(Succeed())

	paths := configuredWebhookPaths(g)
	g.Expect(paths).To(HaveLen(2), "config/webhook/manifests.yaml should name the pod webhook and the SidecarSet webhook")
	// The server makes its mux with its first webhook: none means setup registered none.
	mux := mgr.GetWebhookServer().WebhookMux()
	g.Expect(mux).NotTo(BeNil(), "the API server calls the manager at %s: setup should register the webhooks served there, and registered none",
		strings.Join(paths, " and "))
	for _, path := range paths {
		_, pattern := mux.Handler(&http.Request{Method: http.MethodPost, URL: &url.URL{Path: path}})
		g.Expect(pattern).To(Equal(path), "the API server calls the manager at %s: setup should register the webhook served there", path)
	}
	check, ok := checks.added["webhook"]
	g.Expect(ok).To(BeTrue(), "setup should add a ready check named webhook")
	g.Expect(check(nil)).NotTo(Succeed(),
		"the ready check webhook should fail until the webhook server answers (its StartedChecker), and it has not started")
}

// controller-runtime starts the webhook server before the manager's cache, which the pod
// webhook reads SidecarSets and namespaces from: setup makes the manager ready only once
// the cache has synced, and has the cache hold both kinds from its start, so that the
// sync includes them. A manager ready before would admit pods without their sidecars.
func TestTheManagerIsReadyOnlyOnceItsCacheHasSynced(t *testing.T) {
	g := NewWithT(t)
	mgr := newManager(g)
	cached := &informers{Cache: mgr.GetCache()}
	checks := &readyChecks{Manager: mgr, cache: cached, added: map[string]healthz.Checker{}}
	g.Expect(flags{managerNamespace: "sidecarset-system"}.setup(checks)).To(Succeed())

	check, ok := checks.added["cache"]
	g.Expect(ok).To(BeTrue(), "setup should add a ready check named cache")
	g.Expect(check(nil)).To(MatchError(ContainSubstring("not synced")),
		"the ready check cache should fail until the manager's cache has synced (cacheSynced(mgr.GetCache())), and it has not started")
	g.Expect(cached.kinds).To(ContainElements("*v1.SidecarSet", "*v1.Namespace"),
		"the cache should hold SidecarSets and namespaces from its start, for the pod webhook")
}

// newManager returns a manager that is never started: its API server does not exist, and
// a fixed RESTMapper knows the kinds the webhooks read, which the manager would otherwise
// ask that API server about.
func newManager(g Gomega) ctrl.Manager {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(sidecarsv1.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(&rest.Config{Host: "https://127.0.0.1:1"}, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		// Each test sets up the same controller in a manager of its own.
		Controller: config.Controller{SkipNameValidation: &skipNameValidation},
		MapperProvider: func(*rest.Config, *http.Client) (meta.RESTMapper, error) {
			mapper := meta.NewDefaultRESTMapper(nil)
			mapper.Add(sidecarsv1.GroupVersion.WithKind("SidecarSet"), meta.RESTScopeRoot)
			mapper.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)
			mapper.Add(corev1.SchemeGroupVersion.WithKind("Pod"), meta.RESTScopeNamespace)
			return mapper, nil
		},
	})
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return mgr
}

var skipNameValidation = true

// informers is a cache that remembers the kinds it was asked informers for.
type informers struct {
	cache.Cache
	kinds []string
}

func (c *informers) GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error) {
	c.kinds = append(c.kinds, fmt.Sprintf("%T", obj))
	return c.Cache.GetInformer(ctx, obj, opts...)
}

// In a pod, the manager's namespace is the pod's own, which the pods of the webhook and
// the controller leave alone; outside a pod, the namespace config/default deploys to.
func TestTheManagerNamespaceIsThePodsOwn(t *testing.T) {
	g := NewWithT(t)
	file := filepath.Join(t.TempDir(), "namespace")
	g.Expect(os.WriteFile(file, []byte("operators\n"), 0o644)).To(Succeed())
	for file, want := range map[string]string{file: "operators", filepath.Join(t.TempDir(), "none"): "sidecarset-system"} {
		var f flags
		fs := flag.NewFlagSet("manager", flag.ContinueOnError)
		f.bind(fs, file)
		g.Expect(fs.Parse(nil)).To(Succeed())
		g.Expect(f.managerNamespace).To(Equal(want), "--manager-namespace by default, with the namespace file %s", file)
		g.Expect(fs.Parse([]string{"--manager-namespace=ops"})).To(Succeed())
		g.Expect(f.managerNamespace).To(Equal("ops"), "--manager-namespace=ops")
	}
}

// readyChecks is a manager that remembers the ready checks added to it, and hands out
// cache, when set, as its cache.
type readyChecks struct {
	ctrl.Manager
	cache cache.Cache
	added map[string]healthz.Checker
}

func (m *readyChecks) GetCache() cache.Cache {
	if m.cache != nil {
		return m.cache
	}
	return m.Manager.GetCache()
}

func (m *readyChecks) AddReadyzCheck(name string, check healthz.Checker) error {
	m.added[name] = check
	return m.Manager.AddReadyzCheck(name, check)
}

// configuredWebhookPaths returns the path of every webhook in config/webhook/manifests.yaml.
func configuredWebhookPaths(g Gomega) []string {
	data, err := os.ReadFile(filepath.Join("..", "config", "webhook", "manifests.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	var paths []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var config struct {
			Webhooks []struct {
				ClientConfig struct {
					Service struct {
						Path string `json:"path"`
					} `json:"service"`
				} `json:"clientConfig"`
			} `json:"webhooks"`
		}
		g.Expect(yaml.Unmarshal([]byte(doc), &config)).To(Succeed())
		for _, hook := range config.Webhooks {
			paths = append(paths, hook.ClientConfig.Service.Path)
		}
	}
	return paths
}
