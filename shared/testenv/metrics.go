package testenv

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"testing"

	"github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// StartManager starts a manager of the test's own, made with o as cfg and with no
// controllers unless the test adds them before it starts, and stops it when the test
// ends.
func (e *Env) StartManager(t testing.TB, cfg *rest.Config, o ctrl.Options) ctrl.Manager {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, o)
	gomega.NewWithT(t).Expect(err).NotTo(gomega.HaveOccurred())
	ctx, cancel := context.WithCancel(e.Context())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = mgr.Start(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-stopped
	})
	return mgr
}

// ExpectMetricsOnlyForReaders starts a manager whose options configure sets (as a
// manager's bootstrap.Options.Configure does), its metrics on an address of
// this machine, and scrapes them as a deployed manager's are scraped: over plain HTTP,
// over HTTPS without a token, with the token of a service account bound to the
// ClusterRole of readerRolePath (config/rbac/metrics_reader_role.yaml) and with one of a
// service account that is not. Only the bound one may read them: what
// filters.WithAuthenticationAndAuthorization, over HTTPS, gives.
func (e *Env) ExpectMetricsOnlyForReaders(t testing.TB, configure func(*ctrl.Options), readerRolePath string) {
	t.Helper()
	o := ctrl.Options{Scheme: e.Client().Scheme()}
	configure(&o)
	g := gomega.NewWithT(t)
	ctx := e.Context()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(gomega.HaveOccurred())
	addr := l.Addr().String()
	g.Expect(l.Close()).To(gomega.Succeed())
	o.Metrics.BindAddress, o.HealthProbeBindAddress = addr, "0"
	e.StartManager(t, e.Config(), o)

	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	scrape := func(scheme, token string) int {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+addr+"/metrics", nil)
		g.Expect(err).NotTo(gomega.HaveOccurred())
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
	g.Eventually(func() int { return scrape("https", "") }).Should(gomega.Equal(http.StatusUnauthorized),
		"a scrape without a token should be refused as unauthenticated: the metrics should be served over HTTPS, "+
			"behind filters.WithAuthenticationAndAuthorization")
	g.Expect(scrape("http", "")).NotTo(gomega.Equal(http.StatusOK), "the metrics should not be served over plain HTTP")

	ns := e.Namespace(t)
	kube, err := kubernetes.NewForConfig(e.Config())
	g.Expect(err).NotTo(gomega.HaveOccurred())
	token := func(name string) string {
		account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		g.Expect(e.Client().Create(ctx, account)).To(gomega.Succeed())
		request, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		g.Expect(err).NotTo(gomega.HaveOccurred())
		return request.Status.Token
	}
	scraper, stranger := token("scraper"), token("stranger")
	reader := &rbacv1.ClusterRole{}
	g.Expect(ReadManifest(readerRolePath, reader)).To(gomega.Succeed())
	reader.ObjectMeta = metav1.ObjectMeta{GenerateName: "metrics-reader-"}
	e.bind(t, reader, "", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "scraper"},
		authorizationv1.SubjectAccessReviewSpec{
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		})

	g.Expect(scrape("https", scraper)).To(gomega.Equal(http.StatusOK),
		"a service account bound to %s should read the metrics", readerRolePath)
	g.Expect(scrape("https", stranger)).To(gomega.Equal(http.StatusForbidden), "a service account not bound to it may not")
}

// ExpectRoleAllowsMetricsFilter checks that the ClusterRole of rolePath (the manager's,
// config/rbac/role.yaml) lets the manager ask the API server about a scraper, as
// filters.WithAuthenticationAndAuthorization does for each scrape: who it is (a
// TokenReview) and whether it may get /metrics (a SubjectAccessReview).
func (e *Env) ExpectRoleAllowsMetricsFilter(t testing.TB, rolePath string) {
	t.Helper()
	g := gomega.NewWithT(t)
	asManager, err := client.New(e.AsRole(t, rolePath, ""), client.Options{Scheme: e.Client().Scheme()})
	g.Expect(err).NotTo(gomega.HaveOccurred())
	review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "a-scrapers-token"}}
	g.Expect(asManager.Create(e.Context(), review)).To(gomega.Succeed(),
		"the manager's role should allow creating tokenreviews (authentication.k8s.io): an RBAC marker of cmd/")
	access := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:                  "system:serviceaccount:monitoring:prometheus",
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
	}}
	g.Expect(asManager.Create(e.Context(), access)).To(gomega.Succeed(),
		"the manager's role should allow creating subjectaccessreviews (authorization.k8s.io): an RBAC marker of cmd/")
}
