package controller

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/tracks/clientgo/api/apps/v1"
)

// The helpers of the tests that drive passes of a controller of their own
// (imoocpod_sync_test.go): a pass once its cache has caught up, the Ready condition it
// wrote in one line, and API servers that count or refuse what a pass sends.

// pass runs one sync of ip with c, once c's cache shows ip as the API server has it now
// (a pass that read an older spec would act on it) and shows at least pods of its pods.
func pass(g Gomega, c *Controller, ip *appsv1.ImoocPod, pods int) error {
	want := latest(g, ip)
	g.EventuallyWithOffset(1, func(g Gomega) {
		cached, err := c.imoocPodLister.Get(ip.Namespace, ip.Name)
		g.Expect(err).NotTo(HaveOccurred(), "the test controller's cache should show ImoocPod %s", ip.Name)
		g.Expect(cached.Generation).To(Equal(want.Generation), "the cached ImoocPod's generation")
		listed, err := c.podLister.Pods(ip.Namespace).List(labels.Everything())
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(len(listed)).To(BeNumerically(">=", pods), "pods in the test controller's cache")
	}).Should(Succeed())
	_, err := c.sync(env.Context(), keyOf(ip))
	return err
}

// passSucceeds runs a pass as pass does, and fails the test unless the pass succeeded,
// saying what (a format and its arguments, as gomega takes them).
func passSucceeds(g Gomega, c *Controller, ip *appsv1.ImoocPod, pods int, what ...any) {
	g.ExpectWithOffset(1, testenv.ErrorText(pass(g, c, ip, pods))).To(BeEmpty(), what...)
}

// readyAs prints the Ready condition's status and reason, for comparing in one line.
func readyAs(ip *appsv1.ImoocPod) string {
	ready := readyCondition(ip)
	return string(ready.Status) + " " + ready.Reason
}

// countWrites returns a copy of cfg whose requests that change something (every method
// but GET) are counted in n: what a pass sends, whether through the kube or the
// dynamic client. The informers' lists and watches are GETs.
func countWrites(cfg *rest.Config, n *atomic.Int64) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			if req.Method != http.MethodGet {
				n.Add(1)
			}
			return next.RoundTrip(req)
		})
	})
	return cfg
}

// refusePodCreates returns a copy of cfg whose pod creates the API server refuses with
// message, like a namespace whose quota is used up.
func refusePodCreates(cfg *rest.Config, message string) *rest.Config {
	return refuse(cfg, func(req *http.Request) string {
		if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/pods") {
			return ""
		}
		return `pods is forbidden: ` + message
	})
}

// refusePodDeletes returns a copy of cfg whose pod deletes the API server refuses, as a
// policy webhook would, each with a message of about a kilobyte.
func refusePodDeletes(cfg *rest.Config) *rest.Config {
	return refuse(cfg, func(req *http.Request) string {
		if req.Method != http.MethodDelete || !strings.Contains(req.URL.Path, "/pods/") {
			return ""
		}
		return fmt.Sprintf(`pods %q is forbidden: admission webhook "protect.policy.example.com" denied the request: %s`,
			req.URL.Path[strings.LastIndex(req.URL.Path, "/")+1:],
			strings.Repeat("this pod is protected by the team's disruption policy; ", 20))
	})
}

// refuse returns a copy of cfg whose requests the API server answers 403 Forbidden with
// the message refusal gives them, and sends on when it gives none.
func refuse(cfg *rest.Config, refusal func(*http.Request) string) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			message := refusal(req)
			if message == "" {
				return next.RoundTrip(req)
			}
			body := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":%q}`, message)
			return &http.Response{
				StatusCode: http.StatusForbidden,
				Header:     http.Header{"Content-Type": []string{"application/json"}},
				Body:       io.NopCloser(strings.NewReader(body)),
				Request:    req,
			}, nil
		})
	})
	return cfg
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
