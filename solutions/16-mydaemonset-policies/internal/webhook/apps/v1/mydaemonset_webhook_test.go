package v1

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

const (
	pauseImage = "registry.k8s.io/pause:3.10"
	// pauseDigest is a well-formed sha256 digest. Nothing pulls it: envtest runs no
	// kubelet, and these tests run no controller.
	pauseDigest = "sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a"

	validatingWebhook       = "vmydaemonset-v1.kb.io"
	validatingConfiguration = "validating-webhook-configuration"
	// bySchema, for testenv.ExpectRefusedBy, is a refusal by the CRD's schema.
	bySchema = ""
)

func newMyDaemonSet(ns, name, image string) *appsv1.MyDaemonSet {
	return &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       appsv1.MyDaemonSetSpec{Image: image},
	}
}

// stored reads mds straight from the API server: what it stored, defaults included.
func stored(g Gomega, mds *appsv1.MyDaemonSet) *appsv1.MyDaemonSet {
	var got appsv1.MyDaemonSet
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(mds), &got)).To(Succeed())
	return &got
}

// The samples are what the walkthrough and the docs use: each must meet its fate.
func TestTheSamples(t *testing.T) {
	ns := env.WebhookNamespace(t)
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
			var sample appsv1.MyDaemonSet
			g.Expect(testenv.ReadSample(tt.file, &sample)).To(Succeed())
			sample.Namespace = ns

			c, recorder := env.ClientWithWarnings(g)
			err := c.Create(env.Context(), &sample)
			if tt.fields != nil {
				g.Expect(testenv.CauseFields(err)).To(ConsistOf(tt.fields), "%s should be refused; got: %v", tt.file, err)
				return
			}
			g.Expect(err).NotTo(HaveOccurred(), "%s should be admitted", tt.file)
			if tt.warning == "" {
				g.Expect(recorder.Take()).To(BeEmpty(), "%s deserves no warning", tt.file)
			} else {
				g.Expect(recorder.Take()).To(ConsistOf(ContainSubstring(tt.warning)), "the warning of %s", tt.file)
			}
			g.Expect(stored(g, &sample).Spec.ImagePullPolicy).To(Equal(tt.policy))
		})
	}
}
