package v1

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/04-mydaemonset-webhooks/api/apps/v1"
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

func TestDefaultingSetsTheImagePullPolicy(t *testing.T) {
	ns := newNamespace(t)
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
			g.Expect(env.Client.Create(env.Context(), mds)).To(Succeed())
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
	mds := newMyDaemonSet(newNamespace(t), "once", "registry.k8s.io/pause")
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())
	g.Expect(stored(g, mds).Spec.ImagePullPolicy).To(Equal(corev1.PullAlways))

	patch := []byte(`{"spec":{"image":"` + pauseImage + `"}}`)
	g.Expect(env.Client.Patch(ctx, mds, client.RawPatch("application/merge-patch+json", patch))).To(Succeed())
	g.Expect(stored(g, mds).Spec.ImagePullPolicy).To(Equal(corev1.PullAlways),
		"a patch of the image alone keeps the stored policy")

	patch = []byte(`{"spec":{"imagePullPolicy":null}}`)
	g.Expect(env.Client.Patch(ctx, mds, client.RawPatch("application/merge-patch+json", patch))).To(Succeed())
	g.Expect(stored(g, mds).Spec.ImagePullPolicy).To(Equal(corev1.PullIfNotPresent),
		"an update that removes the policy gets the default of the current image")
}

func TestTheAPIServerRefusesBadMyDaemonSets(t *testing.T) {
	ns := newNamespace(t)
	tests := []struct {
		name string
		spec map[string]any
		// byWebhook is false for what the CRD's schema refuses before any validating
		// webhook is called.
		byWebhook bool
		field     string
		message   string
	}{
		{"no image", map[string]any{}, false,
			"spec.image", "Required value"},
		{"an empty image", map[string]any{"image": ""}, false,
			"spec.image", "should be at least 1 chars long"},
		{"a pull policy that does not exist", map[string]any{"image": pauseImage, "imagePullPolicy": "Sometimes"}, false,
			"spec.imagePullPolicy", `Unsupported value: "Sometimes"`},
		{"an image with a space", map[string]any{"image": "pause 3.10"}, true,
			"spec.image", `Invalid value: "pause 3.10": must be [registry[:port]/]repository[:tag][@digest]`},
		{"an image with leading whitespace", map[string]any{"image": " " + pauseImage}, true,
			"spec.image", "must not have leading or trailing whitespace"},
		{"an uppercase repository", map[string]any{"image": "registry.k8s.io/Pause:3.10"}, true,
			"spec.image", "the repository must be lowercase"},
		{"an empty tag", map[string]any{"image": "registry.k8s.io/pause:"}, true,
			"spec.image", `Invalid value: "registry.k8s.io/pause:"`},
		{"a short digest", map[string]any{"image": "registry.k8s.io/pause@sha256:" + strings.Repeat("a", 40)}, true,
			"spec.image", "a sha256 digest has 64 lowercase hex digits"},
		{"a node selector key with a space", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"bad key": "x"}}, true,
			"spec.nodeSelector[bad key]", `Invalid value: "bad key": name part must consist of alphanumeric characters`},
		{"a node selector key with an empty name", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"example.com/": "x"}}, true,
			"spec.nodeSelector[example.com/]", "name part must be non-empty"},
		{"a node selector value that is too long", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"disk": strings.Repeat("s", 64)}}, true,
			"spec.nodeSelector[disk]", "must be no more than 63 bytes"},
		{"a node selector value with a !", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"disk": "ssd!"}}, true,
			"spec.nodeSelector[disk]", `Invalid value: "ssd!": a valid label must be an empty string or consist of alphanumeric characters`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": appsv1.GroupVersion.String(),
				"kind":       "MyDaemonSet",
				"metadata":   map[string]any{"namespace": ns, "name": fmt.Sprintf("bad-%d", i)},
				"spec":       tt.spec,
			}}
			err := env.Client.Create(env.Context(), obj)
			g.Expect(err).To(HaveOccurred(), "the API server should refuse a MyDaemonSet with %s", tt.name)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "the refusal should be Invalid (422), got: %v", err)
			g.Expect(causes(err)).To(ContainElement(And(
				HaveField("Field", tt.field),
				HaveField("Message", ContainSubstring(tt.message)),
			)), "the refusal should name the field and say what is wrong with it; got: %v", err)
			if tt.byWebhook {
				g.Expect(err.Error()).To(ContainSubstring(`admission webhook %q denied the request`, validatingWebhook),
					"the CRD's schema allows this; the validating webhook should refuse it")
			}
		})
	}
}

// All of an object's problems come back at once, so that the user fixes them in one go.
func TestEveryProblemIsReportedInOneAnswer(t *testing.T) {
	g := NewWithT(t)
	mds := newMyDaemonSet(newNamespace(t), "many", "Pause")
	mds.Spec.NodeSelector = map[string]string{"bad key": "ssd!"}
	err := env.Client.Create(env.Context(), mds)
	g.Expect(err).To(HaveOccurred())
	g.Expect(causes(err)).To(ConsistOf(
		HaveField("Field", "spec.image"),
		And(HaveField("Field", "spec.nodeSelector[bad key]"), HaveField("Message", ContainSubstring(`"bad key"`))),
		And(HaveField("Field", "spec.nodeSelector[bad key]"), HaveField("Message", ContainSubstring(`"ssd!"`))),
	), "one cause per problem; got: %v", err)
}

func TestUpdatesAreValidatedToo(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	mds := newMyDaemonSet(newNamespace(t), "update", pauseImage)
	g.Expect(env.Client.Create(ctx, mds)).To(Succeed())

	tests := []struct {
		name    string
		change  func(*appsv1.MyDaemonSet)
		field   string
		message string
	}{
		{"a bad image", func(m *appsv1.MyDaemonSet) { m.Spec.Image = "registry.k8s.io/pause:3.10:3.9" },
			"spec.image", `Invalid value: "registry.k8s.io/pause:3.10:3.9"`},
		{"a bad node selector key", func(m *appsv1.MyDaemonSet) { m.Spec.NodeSelector = map[string]string{"-disk": "ssd"} },
			"spec.nodeSelector[-disk]", "name part must consist of alphanumeric characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			changed := stored(g, mds)
			tt.change(changed)
			err := env.Client.Update(ctx, changed)
			g.Expect(err).To(HaveOccurred(), "an update to %s should be refused like a create", tt.name)
			g.Expect(causes(err)).To(ContainElement(And(
				HaveField("Field", tt.field),
				HaveField("Message", ContainSubstring(tt.message)),
			)), "got: %v", err)
		})
	}
	got := stored(g, mds)
	g.Expect(got.Spec.Image).To(Equal(pauseImage), "a refused update changes nothing")
	g.Expect(got.Generation).To(BeEquivalentTo(1), "a refused update changes nothing")
}

func TestFloatingImagesAreAdmittedWithAWarning(t *testing.T) {
	ns := newNamespace(t)
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
			c, recorder := clientWithWarnings(g)
			mds := newMyDaemonSet(ns, fmt.Sprintf("warn-%d", i), tt.image)
			g.Expect(c.Create(env.Context(), mds)).To(Succeed(), "a MyDaemonSet of %s is allowed", tt.image)
			if tt.warning == "" {
				g.Expect(recorder.take()).To(BeEmpty(), "a MyDaemonSet of %s deserves no warning", tt.image)
				return
			}
			g.Expect(recorder.take()).To(ConsistOf(ContainSubstring(tt.warning)),
				"the create of a MyDaemonSet of %s should come back with one warning", tt.image)
		})
	}
}

func TestAnUpdateToAFloatingImageIsWarnedAbout(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	c, recorder := clientWithWarnings(g)
	mds := newMyDaemonSet(newNamespace(t), "update-warn", pauseImage)
	g.Expect(c.Create(ctx, mds)).To(Succeed())
	g.Expect(recorder.take()).To(BeEmpty())

	patch := client.MergeFrom(mds.DeepCopy())
	mds.Spec.Image = "registry.k8s.io/pause:latest"
	g.Expect(c.Patch(ctx, mds, patch)).To(Succeed())
	g.Expect(recorder.take()).To(ConsistOf(ContainSubstring("is tagged latest")),
		"an update to a floating image should come back with a warning")
}

// A MyDaemonSet stored before the webhook existed (by lesson 03's manager, or while the
// configuration was missing) may break the rules. An update that leaves its spec alone
// must still go through: a user labels it, and the garbage collector removes the
// foregroundDeletion finalizer of a foreground delete, or the object never goes. A
// change of its spec must fix it.
func TestAMyDaemonSetStoredBeforeTheRulesCanStillBeLabelledAndDeleted(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	c, recorder := clientWithWarnings(g)
	mds := newMyDaemonSet(newNamespace(t), "before-the-rules", "registry.k8s.io/Pause:3.10")
	_, err := validateMyDaemonSet(mds)
	g.Expect(err).To(MatchError(ContainSubstring("spec.image")),
		"the test needs a MyDaemonSet the validator refuses; validateImage should refuse an uppercase repository")
	withoutValidation(t, func() {
		g.Eventually(func() error { return c.Create(ctx, mds.DeepCopy()) }).Should(Succeed(),
			"without the validating webhook, the CRD's schema lets the MyDaemonSet in")
	})
	g.Eventually(func() error {
		return c.Create(ctx, newMyDaemonSet(mds.Namespace, "probe", mds.Spec.Image), client.DryRunAll)
	}).Should(MatchError(ContainSubstring(validatingWebhook)), "the validating webhook is back")
	recorder.take()

	patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"team":"infra"}}}`))
	g.Expect(c.Patch(ctx, stored(g, mds), patch)).To(Succeed(), "a label patch leaves the spec alone")
	g.Expect(recorder.take()).To(BeEmpty(), "no warning about a spec the patch did not touch")

	patch = client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"nodeSelector":{"disk":"ssd"}}}`))
	err = c.Patch(ctx, stored(g, mds), patch)
	g.Expect(causes(err)).To(ContainElement(HaveField("Field", "spec.image")),
		"a change of the spec must fix what the rules refuse; got: %v", err)

	g.Expect(c.Delete(ctx, stored(g, mds), client.PropagationPolicy(metav1.DeletePropagationForeground))).To(Succeed())
	g.Expect(stored(g, mds).Finalizers).To(ContainElement(metav1.FinalizerDeleteDependents),
		"a foreground delete leaves the object to the garbage collector's finalizer")
	// envtest runs no garbage collector: the test removes the finalizer as it would.
	patch = client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
	g.Expect(c.Patch(ctx, stored(g, mds), patch)).To(Succeed(), "the garbage collector must be able to remove its finalizer")
	g.Eventually(func() bool {
		return apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(mds), &appsv1.MyDaemonSet{}))
	}).Should(BeTrue(), "the MyDaemonSet is gone once its finalizer is")
}

// withoutValidation runs f while the validating webhook configuration is deleted, and
// puts it back. The API server picks up both changes a moment later: f must retry.
func withoutValidation(t *testing.T, f func()) {
	t.Helper()
	g := NewWithT(t)
	ctx := env.Context()
	var config admissionregistrationv1.ValidatingWebhookConfiguration
	g.Expect(env.Client.Get(ctx, client.ObjectKey{Name: validatingConfiguration}, &config)).To(Succeed())
	restore := func() {
		again := config.DeepCopy()
		again.ObjectMeta = metav1.ObjectMeta{Name: config.Name, Labels: config.Labels, Annotations: config.Annotations}
		err := env.Client.Create(ctx, again)
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("putting the validating webhook configuration back: %v", err)
		}
	}
	t.Cleanup(restore) // even when f fails: the other tests need the webhook
	g.Expect(env.Client.Delete(ctx, &config)).To(Succeed())
	f()
	restore()
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
