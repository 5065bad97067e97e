package admission

import (
	"context"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/tracks/mydaemonset/api/apps/v1"
	webhookappsv1 "github.com/kube-workshop/operator-workshop/tracks/mydaemonset/internal/webhook/apps/v1"
)

// policyLoadTimeout is how long the API server may take to enforce a policy it was just
// given: it loads policies in the background, usually within a second.
const policyLoadTimeout = 15 * time.Second

var pullPolicyOnce sync.Once

// withPullPolicyDefault applies config/policies' pull-policy mutating policy and its
// binding, once for the package, and waits until the API server applies it.
func withPullPolicyDefault(t *testing.T) {
	t.Helper()
	pullPolicyOnce.Do(func() { applyManifests(t, "pull_policy.yaml") })
	ns := newNamespace(t, nil)
	NewWithT(t).Eventually(func(g Gomega) {
		probe := newMyDaemonSet(ns, "probe", pauseImage)
		g.Expect(env.Client().Create(env.Context(), probe, client.DryRunAll)).To(Succeed())
		g.Expect(probe.Spec.ImagePullPolicy).NotTo(BeEmpty())
	}).WithTimeout(policyLoadTimeout).Should(Succeed(),
		"the mutating policy of config/policies/pull_policy.yaml never set spec.imagePullPolicy of a MyDaemonSet without one: does its mutation set it?")
}

// The policy gives a MyDaemonSet the pull policy lesson 04's defaulting webhook would:
// the stored object is the one the webhook's Default makes of it.
func TestThePolicyDefaultsThePullPolicyAsTheWebhookDoes(t *testing.T) {
	withPullPolicyDefault(t)
	ns := newNamespace(t, nil)
	images := []string{
		pauseImage,
		"registry.k8s.io/pause",
		"registry.k8s.io/pause:latest",
		"localhost:5000/pause",
		"localhost:5000/pause:v1",
		"pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a",
		"pause:latest@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a",
		"[::1]:5000/pause",
	}
	defaulter := &webhookappsv1.MyDaemonSetCustomDefaulter{}
	for i, image := range images {
		t.Run(image, func(t *testing.T) {
			g := NewWithT(t)
			mds := newMyDaemonSet(ns, "agent-"+string(rune('a'+i)), image)
			byWebhook := mds.DeepCopy()
			g.Expect(defaulter.Default(context.Background(), byWebhook)).To(Succeed())

			g.Expect(env.Client().Create(env.Context(), mds)).To(Succeed())
			got := stored(g, mds, &appsv1.MyDaemonSet{})
			g.Expect(got.Spec).To(Equal(byWebhook.Spec),
				"the policy should store the spec the webhook's Default makes of image %q (spec.imagePullPolicy %q)", image, byWebhook.Spec.ImagePullPolicy)
		})
	}
}

// The policy changes a MyDaemonSet once: a policy the user chose stays, and an update
// of an object it defaulted changes nothing more, as a mutating webhook must (the API
// server may call either again, reinvocationPolicy: IfNeeded).
func TestThePullPolicyDefaultIsAppliedOnce(t *testing.T) {
	withPullPolicyDefault(t)
	g := NewWithT(t)
	ns := newNamespace(t, nil)
	ctx := env.Context()

	chosen := newMyDaemonSet(ns, "chosen", "registry.k8s.io/pause:latest")
	chosen.Spec.ImagePullPolicy = corev1.PullNever
	g.Expect(env.Client().Create(ctx, chosen)).To(Succeed())
	g.Expect(stored(g, chosen, &appsv1.MyDaemonSet{}).Spec.ImagePullPolicy).To(Equal(corev1.PullNever),
		"a policy the user chose stays: the mutation applies only where spec.imagePullPolicy is missing (matchConditions)")

	mds := newMyDaemonSet(ns, "agent", pauseImage)
	g.Expect(env.Client().Create(ctx, mds)).To(Succeed())
	first := stored(g, mds, &appsv1.MyDaemonSet{})
	// The same object sent again: a second pass of the policy must find nothing to do.
	again := first.DeepCopy()
	g.Expect(env.Client().Update(ctx, again)).To(Succeed())
	second := stored(g, mds, &appsv1.MyDaemonSet{})
	g.Expect(second.ResourceVersion).To(Equal(first.ResourceVersion), "an update that sends the stored object back must change nothing")
	g.Expect(second.Spec).To(Equal(first.Spec))

	// A later image does not move a policy already set: the default is chosen once.
	g.Expect(env.Client().Patch(ctx, second.DeepCopy(), client.RawPatch(types.MergePatchType,
		[]byte(`{"spec":{"image":"registry.k8s.io/pause:latest"}}`)))).To(Succeed())
	g.Expect(stored(g, mds, &appsv1.MyDaemonSet{}).Spec.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent))

	// Removing it asks for the default again, from the image of now: the mutation runs
	// before the CRD's rules, so the transition rule sees the policy set.
	remove := client.RawPatch(types.JSONPatchType, []byte(`[{"op":"remove","path":"/spec/imagePullPolicy"}]`))
	g.Expect(env.Client().Patch(ctx, second.DeepCopy(), remove)).To(Succeed())
	g.Expect(stored(g, mds, &appsv1.MyDaemonSet{}).Spec.ImagePullPolicy).To(Equal(corev1.PullAlways))
}
