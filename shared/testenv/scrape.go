package testenv

import (
	"crypto/tls"
	"io"
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
	ctrl "sigs.k8s.io/controller-runtime"
)

// A MetricsScraper reads a manager's /metrics as a deployed manager's are read: over
// HTTPS, with the token of a service account bound to the metrics reader's ClusterRole.
type MetricsScraper struct {
	url, token string
	client     *http.Client
}

// NewMetricsScraper starts a manager whose options configure sets (as a manager's
// bootstrap.Options.Configure does, securemetrics.Serve for a deployed one), serving its
// metrics on an address of this machine, and returns a scraper of them with the token of
// a service account bound to the ClusterRole of readerRolePath
// (config/rbac/metrics_reader_role.yaml). The manager serves controller-runtime's
// registry, which every manager of the test binary shares: what the test's own manager
// records shows there.
func (e *Env) NewMetricsScraper(t testing.TB, configure func(*ctrl.Options), readerRolePath string) *MetricsScraper {
	t.Helper()
	g := gomega.NewWithT(t)
	ctx := e.Context()
	o := ctrl.Options{Scheme: e.Client().Scheme()}
	configure(&o)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(gomega.HaveOccurred())
	addr := l.Addr().String()
	g.Expect(l.Close()).To(gomega.Succeed())
	o.Metrics.BindAddress, o.HealthProbeBindAddress = addr, "0"
	e.StartManager(t, e.Config(), o)

	ns := e.Namespace(t)
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "scraper"}}
	g.Expect(e.Client().Create(ctx, account)).To(gomega.Succeed())
	kube, err := kubernetes.NewForConfig(e.Config())
	g.Expect(err).NotTo(gomega.HaveOccurred())
	request, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, account.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	g.Expect(err).NotTo(gomega.HaveOccurred())
	reader := &rbacv1.ClusterRole{}
	g.Expect(ReadManifest(readerRolePath, reader)).To(gomega.Succeed())
	reader.ObjectMeta = metav1.ObjectMeta{GenerateName: "metrics-reader-"}
	e.bind(t, reader, "", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: account.Name},
		authorizationv1.SubjectAccessReviewSpec{
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
		})
	// The manager serves a certificate it made at start, which nothing here can verify.
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	return &MetricsScraper{url: "https://" + addr + "/metrics", token: request.Status.Token, client: insecure}
}

// Scrape returns the text /metrics serves, failing the test on any other answer than
// 200 OK once the server answers.
func (s *MetricsScraper) Scrape(t testing.TB) string {
	t.Helper()
	g := gomega.NewWithT(t)
	var body string
	g.Eventually(func() (int, error) {
		req, err := http.NewRequest(http.MethodGet, s.url, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+s.token)
		resp, err := s.client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		body = string(b)
		return resp.StatusCode, err
	}).Should(gomega.Equal(http.StatusOK), "a service account bound to the metrics reader's role should read /metrics over HTTPS")
	return body
}
