package v1

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestFloatingImagesAreAdmittedWithAWarning(t *testing.T) {
	ns := env.WebhookNamespace(t)
	tests := []struct {
		name  string
		image string
		// warning is "" when no warning is expected.
		warning string
	}{
		{"a version tag", pauseImage, ""},
		{"a digest", "registry.k8s.io/pause@" + pauseDigest, ""},
		{"latest pinned by a digest", "registry.k8s.io/pause:latest@" + pauseDigest, ""},
		{"the tag latest", "registry.k8s.io/pause:latest", `spec.image: "registry.k8s.io/pause:latest" is tagged latest`},
		{"no tag", "busybox", `spec.image: "busybox" has no tag, which means latest`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			c, recorder := env.ClientWithWarnings(g)
			mds := newMyDaemonSet(ns, fmt.Sprintf("warn-%d", i), tt.image)
			g.Expect(c.Create(env.Context(), mds)).To(Succeed(), "a MyDaemonSet of %s is allowed", tt.image)
			if tt.warning == "" {
				g.Expect(recorder.Take()).To(BeEmpty(), "a MyDaemonSet of %s deserves no warning", tt.image)
				return
			}
			g.Expect(recorder.Take()).To(ConsistOf(ContainSubstring(tt.warning)),
				"the create of a MyDaemonSet of %s should come back with one warning", tt.image)
		})
	}
}

func TestAnUpdateToAFloatingImageIsWarnedAbout(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	c, recorder := env.ClientWithWarnings(g)
	mds := newMyDaemonSet(env.WebhookNamespace(t), "update-warn", pauseImage)
	g.Expect(c.Create(ctx, mds)).To(Succeed())
	g.Expect(recorder.Take()).To(BeEmpty())

	patch := client.MergeFrom(mds.DeepCopy())
	mds.Spec.Image = "registry.k8s.io/pause:latest"
	g.Expect(c.Patch(ctx, mds, patch)).To(Succeed())
	g.Expect(recorder.Take()).To(ConsistOf(ContainSubstring("is tagged latest")),
		"an update to a floating image should come back with a warning")
}
