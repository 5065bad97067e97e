package v1

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The defaulting webhook: defaultPullPolicy called directly, then what the API server
// stores once the mutating webhook has run.

func TestDefaultPullPolicy(t *testing.T) {
	tests := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"registry.k8s.io/pause:3.10", corev1.PullIfNotPresent},
		{"registry.k8s.io/pause", corev1.PullAlways},
		{"registry.k8s.io/pause:latest", corev1.PullAlways},
		{"localhost:5000/pause", corev1.PullAlways},
		{"registry.k8s.io/pause@" + pauseDigest, corev1.PullIfNotPresent},
		{"registry.k8s.io/pause:latest@" + pauseDigest, corev1.PullAlways},
		{"not an image", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			NewWithT(t).Expect(defaultPullPolicy(tt.image)).To(Equal(tt.want), "the default pull policy of %q", tt.image)
		})
	}
}

func TestDefaultingSetsTheImagePullPolicy(t *testing.T) {
	ns := env.WebhookNamespace(t)
	tests := []struct {
		name   string
		image  string
		policy corev1.PullPolicy
		want   corev1.PullPolicy
	}{
		{"a version tag", pauseImage, "", corev1.PullIfNotPresent},
		{"no tag: the runtime pulls latest", "registry.k8s.io/pause", "", corev1.PullAlways},
		{"the tag latest", "registry.k8s.io/pause:latest", "", corev1.PullAlways},
		{"a digest without a tag", "registry.k8s.io/pause@" + pauseDigest, "", corev1.PullIfNotPresent},
		{"a policy the user chose stays", "registry.k8s.io/pause:latest", corev1.PullNever, corev1.PullNever},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			mds := newMyDaemonSet(ns, fmt.Sprintf("defaults-%d", i), tt.image)
			mds.Spec.ImagePullPolicy = tt.policy
			g.Expect(env.Client().Create(env.Context(), mds)).To(Succeed())
			g.Expect(stored(g, mds).Spec.ImagePullPolicy).To(Equal(tt.want),
				"the stored spec.imagePullPolicy of a MyDaemonSet of %s", tt.image)
		})
	}
}

// The default is chosen once: an update that leaves the field alone keeps the stored
// policy, even when the image it was derived from changes. Only an update that removes
// it gets a new default, from the new image.
func TestTheDefaultFollowsTheImageOnlyWhenTheFieldIsRemoved(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	mds := newMyDaemonSet(env.WebhookNamespace(t), "once", "registry.k8s.io/pause")
	g.Expect(env.Client().Create(ctx, mds)).To(Succeed())
	g.Expect(stored(g, mds).Spec.ImagePullPolicy).To(Equal(corev1.PullAlways))

	patch := []byte(`{"spec":{"image":"` + pauseImage + `"}}`)
	g.Expect(env.Client().Patch(ctx, mds, client.RawPatch("application/merge-patch+json", patch))).To(Succeed())
	g.Expect(stored(g, mds).Spec.ImagePullPolicy).To(Equal(corev1.PullAlways),
		"a patch of the image alone keeps the stored policy")

	patch = []byte(`{"spec":{"imagePullPolicy":null}}`)
	g.Expect(env.Client().Patch(ctx, mds, client.RawPatch("application/merge-patch+json", patch))).To(Succeed())
	g.Expect(stored(g, mds).Spec.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent),
		"an update that removes the policy gets the default of the current image")
}
