//stage:4

package v1

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/04-mydaemonset-webhooks/api/apps/v1"
)

const (
	pauseImage = "registry.k8s.io/pause:3.10"
	// pauseDigest is a well-formed sha256 digest. Nothing pulls it: envtest runs no
	// kubelet, and these tests run no controller.
	pauseDigest = "sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a"

	validatingWebhook       = "vmydaemonset-v1.kb.io"
	validatingConfiguration = "validating-webhook-configuration"
)

// newNamespace waits for the webhook server and returns a fresh namespace. It skips the
// test while fuzzing, when no API server runs (see TestMain).
func newNamespace(t *testing.T) string {
	t.Helper()
	if env == nil {
		t.Skip("no API server while fuzzing")
	}
	// The manager starts its webhook server in the background, and until it answers the
	// API server refuses every MyDaemonSet (failurePolicy=fail). cmd/main.go makes the
	// same check the manager's ready check.
	NewWithT(t).Eventually(func() error {
		return env.Manager.GetWebhookServer().StartedChecker()(nil)
	}).Should(Succeed(), "the manager's webhook server should answer")
	return env.Namespace(t)
}

func newMyDaemonSet(ns, name, image string) *appsv1.MyDaemonSet {
	return &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       appsv1.MyDaemonSetSpec{Image: image},
	}
}

// stored reads mds straight from the API server: what it stored, defaults included.
func stored(g Gomega, mds *appsv1.MyDaemonSet) *appsv1.MyDaemonSet {
	var got appsv1.MyDaemonSet
	g.ExpectWithOffset(1, env.Client.Get(env.Context(), client.ObjectKeyFromObject(mds), &got)).To(Succeed())
	return &got
}

// warningRecorder keeps the warnings the API server sends with its answers, the lines
// kubectl prints as "Warning: ...".
type warningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

func (r *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, text)
}

// take returns the warnings received since the last call.
func (r *warningRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.warnings
	r.warnings = nil
	return w
}

// clientWithWarnings returns a client that records the API server's warnings instead of
// logging them.
func clientWithWarnings(g Gomega) (client.Client, *warningRecorder) {
	recorder := &warningRecorder{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandlerWithContext = recorder
	c, err := client.New(cfg, client.Options{Scheme: env.Client.Scheme()})
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return c, recorder
}

// causes returns the field causes of an API error: one per problem, each with its path.
func causes(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		return status.Status().Details.Causes
	}
	return nil
}

// The samples are what the walkthrough and the docs use: each must meet its fate.
func TestTheSamples(t *testing.T) {
	ns := newNamespace(t)
	tests := []struct {
		file string
		// fields are the causes of the refusal; nil when the sample is admitted.
		fields []string
		// warning is "" when no warning is expected.
		warning string
		policy  corev1.PullPolicy
	}{
		{"apps_v1_mydaemonset.yaml", nil, "", corev1.PullIfNotPresent},
		{"latest_mydaemonset.yaml", nil, "is tagged latest", corev1.PullAlways},
		{"bad_mydaemonset.yaml", []string{"spec.image", "spec.nodeSelector[disk type]"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			g := NewWithT(t)
			file, err := os.Open(filepath.Join("..", "..", "..", "..", "config", "samples", tt.file))
			g.Expect(err).NotTo(HaveOccurred())
			defer file.Close()
			var sample appsv1.MyDaemonSet
			g.Expect(yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&sample)).To(Succeed())
			sample.Namespace = ns

			c, recorder := clientWithWarnings(g)
			err = c.Create(env.Context(), &sample)
			if tt.fields != nil {
				var fields []string
				for _, cause := range causes(err) {
					fields = append(fields, cause.Field)
				}
				g.Expect(fields).To(ConsistOf(tt.fields), "%s should be refused; got: %v", tt.file, err)
				return
			}
			g.Expect(err).NotTo(HaveOccurred(), "%s should be admitted", tt.file)
			if tt.warning == "" {
				g.Expect(recorder.take()).To(BeEmpty(), "%s deserves no warning", tt.file)
			} else {
				g.Expect(recorder.take()).To(ConsistOf(ContainSubstring(tt.warning)), "the warning of %s", tt.file)
			}
			g.Expect(stored(g, &sample).Spec.ImagePullPolicy).To(Equal(tt.policy))
		})
	}
}

//stage:end
