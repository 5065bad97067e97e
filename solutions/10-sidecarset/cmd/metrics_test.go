package main

import (
	"context"
	"crypto/tls"
	"flag"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/10-sidecarset/api/sidecars/v1"
)

// The metrics tests need an API server, which authenticates and authorizes scrapers; the
// other tests of the package use none.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{Scheme: testenv.Scheme(sidecarsv1.AddToScheme)}, &env))
}

// A deployed manager serves its metrics to the whole cluster network. secureMetrics, which
// main installs unless --metrics-secure=false, serves them over HTTPS only, and only to a
// caller the API server authenticates and allows to get /metrics, as the ClusterRole of
// config/rbac/metrics_reader_role.yaml does once bound to a scraper.
func TestTheMetricsAreServedOnlyToWhoMayReadThem(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	addr := freeAddress(g)
	o := ctrl.Options{
		Scheme:                 env.Client.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: addr},
		HealthProbeBindAddress: "0",
	}
	secureMetrics(&o)
	mgr, err := ctrl.NewManager(env.Config, o)
	g.Expect(err).NotTo(HaveOccurred())
	mgrCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = mgr.Start(mgrCtx)
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	scrape := func(scheme, token string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+addr+"/metrics", nil)
		g.Expect(err).NotTo(HaveOccurred())
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := insecure.Do(req)
		if err != nil {
			return 0
		}
		defer resp.Body.Close()
		return resp.StatusCode
	}
	g.Eventually(func() int { return scrape("https", "") }).Should(Equal(http.StatusUnauthorized),
		"a scrape without a token should be refused as unauthenticated: secureMetrics should put the metrics behind "+
			"filters.WithAuthenticationAndAuthorization, over HTTPS")
	g.Expect(scrape("http", "")).NotTo(Equal(http.StatusOK), "the metrics should not be served over plain HTTP")

	// Two service accounts: one bound to the metrics-reader ClusterRole, one not.
	ns := env.Namespace(t)
	kube, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	token := func(name string) string {
		account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		g.Expect(env.Client.Create(ctx, account)).To(Succeed())
		request, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		return request.Status.Token
	}
	scraper, stranger := token("scraper"), token("stranger")
	reader := clusterRole(g, filepath.Join("..", "config", "rbac", "metrics_reader_role.yaml"))
	reader.Name = "metrics-reader-" + ns
	g.Expect(env.Client.Create(ctx, reader)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), reader) })
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: reader.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "scraper"}},
	}
	g.Expect(env.Client.Create(ctx, binding)).To(Succeed())
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), binding) })
	// The API server's authorizer learns of a new binding through its own cache, and the
	// filter keeps a refusal for 30 s: scrape only once the binding is known.
	g.Eventually(func(g Gomega) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:                  "system:serviceaccount:" + ns + ":scraper",
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		}}
		g.Expect(env.Client.Create(ctx, review)).To(Succeed())
		g.Expect(review.Status.Allowed).To(BeTrue(), "the authorizer knows the new binding")
	}).Should(Succeed())

	g.Expect(scrape("https", scraper)).To(Equal(http.StatusOK),
		"a service account bound to config/rbac/metrics_reader_role.yaml should read the metrics")
	g.Expect(scrape("https", stranger)).To(Equal(http.StatusForbidden),
		"a service account not bound to it may not")
}

// The metrics filter asks the API server about every scraper, with the manager's own
// identity: the role controller-gen writes from the RBAC markers (config/rbac/role.yaml)
// must let it, or a deployed manager answers every scrape with an error.
func TestTheManagersRoleAllowsTheMetricsFilter(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	cfg := env.AsRole(t, filepath.Join("..", "config", "rbac", "role.yaml"), "")
	asManager, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
	g.Expect(err).NotTo(HaveOccurred())

	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "a-scrapers-token"}}
	g.Expect(asManager.Create(ctx, review)).To(Succeed(),
		"the manager's role should allow creating tokenreviews (authentication.k8s.io): an RBAC marker in cmd/metrics.go")
	access := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:                  "system:serviceaccount:monitoring:prometheus",
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
	}}
	g.Expect(asManager.Create(ctx, access)).To(Succeed(),
		"the manager's role should allow creating subjectaccessreviews (authorization.k8s.io): an RBAC marker in cmd/metrics.go")
}

// --metrics-secure is true unless told otherwise; false serves plain HTTP, for a manager
// on this machine whose memory make bench-sidecarset reads.
func TestTheMetricsAreSecureUnlessToldOtherwise(t *testing.T) {
	g := NewWithT(t)
	var opts bootstrap.Options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	serveMetricsSecurely(fs, &opts)
	g.Expect(fs.Parse(nil)).To(Succeed())
	g.Expect(opts.Configure).NotTo(BeNil(), "by default the manager serves its metrics securely")
	var o ctrl.Options
	opts.Configure(&o)
	g.Expect(o.Metrics.SecureServing).To(BeTrue(), "by default the metrics are served over HTTPS")
	g.Expect(o.Metrics.FilterProvider).NotTo(BeNil(), "by default the metrics are served behind the authentication filter")
	g.Expect(fs.Parse([]string{"--metrics-secure=false"})).To(Succeed())
	g.Expect(opts.Configure).To(BeNil(), "--metrics-secure=false serves the metrics as controller-runtime does by default")
}

// freeAddress returns an address on this machine that nothing listens on.
func freeAddress(g Gomega) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().String()
}

// clusterRole reads the ClusterRole of a file of config/rbac.
func clusterRole(g Gomega, path string) *rbacv1.ClusterRole {
	file, err := os.Open(path)
	g.Expect(err).NotTo(HaveOccurred())
	defer file.Close()
	var role rbacv1.ClusterRole
	g.Expect(yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&role)).To(Succeed())
	return &role
}
