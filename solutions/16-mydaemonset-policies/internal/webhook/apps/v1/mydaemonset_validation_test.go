package v1

import (
	"context"
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

// The validating webhook: its functions called directly, without an API server (the
// cases the CRD's schema refuses first, such as an empty image, show here too, and a
// failure names the function), then what the API server refuses through it, on a create
// and on an update.

// expectProblems checks what validateMyDaemonSet says of a MyDaemonSet named demo with
// spec: no error when wantErrors is nil, else one Invalid error with one cause per
// problem, each cause containing its entry of wantErrors.
func expectProblems(t *testing.T, spec appsv1.MyDaemonSetSpec, wantErrors []string) {
	t.Helper()
	g := NewWithT(t)
	mds := &appsv1.MyDaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Spec: spec}
	_, err := validateMyDaemonSet(mds)
	if wantErrors == nil {
		g.Expect(err).NotTo(HaveOccurred())
		return
	}
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "validateMyDaemonSet should return apierrors.NewInvalid, got %v", err)
	g.Expect(err.Error()).To(HavePrefix(`MyDaemonSet.apps.workshop.dev "demo" is invalid`))
	for _, want := range wantErrors {
		g.Expect(err.Error()).To(ContainSubstring(want))
	}
	g.Expect(testenv.Causes(err)).To(HaveLen(len(wantErrors)), "one cause per problem: %v", err)
}

// validateMyDaemonSet with the checks that are given: the pull policy and the tolerations.
func TestValidateMyDaemonSet(t *testing.T) {
	tests := []struct {
		name       string
		spec       appsv1.MyDaemonSetSpec
		wantErrors []string
	}{
		{"a valid spec", appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: map[string]string{"kubernetes.io/os": "linux", "gpu": ""}}, nil},
		{"a pull policy that does not exist", appsv1.MyDaemonSetSpec{Image: pauseImage, ImagePullPolicy: "Sometimes"},
			[]string{`spec.imagePullPolicy: Unsupported value: "Sometimes"`}},
		{"valid tolerations", appsv1.MyDaemonSetSpec{Image: pauseImage, Tolerations: []corev1.Toleration{
			{Key: "example.com/dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
			{Operator: corev1.TolerationOpExists},
		}}, nil},
		{"bad tolerations", appsv1.MyDaemonSetSpec{Image: pauseImage, Tolerations: []corev1.Toleration{
			{Key: "b@d", Operator: corev1.TolerationOpExists, Value: "x"},
			{Value: "v", Effect: "Sometimes", TolerationSeconds: ptr.To[int64](60)},
		}}, []string{
			`spec.tolerations[0].key: Invalid value: "b@d"`,
			`spec.tolerations[0].value: Invalid value: "x": a toleration with the operator Exists has no value`,
			`spec.tolerations[1].operator: Invalid value: "": a toleration without a key must have the operator Exists`,
			`spec.tolerations[1].effect: Unsupported value: "Sometimes"`,
			`spec.tolerations[1].tolerationSeconds: Forbidden`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectProblems(t, tt.spec, tt.wantErrors) })
	}
}

func TestValidateImage(t *testing.T) {
	tests := []struct {
		name       string
		image      string
		wantErrors []string
	}{
		{"no image", "", []string{"spec.image: Required value"}},
		{"an empty tag", "pause:", []string{`spec.image: Invalid value: "pause:"`}},
		{"an uppercase repository", "registry.k8s.io/Pause:3.10", []string{`spec.image: Invalid value: "registry.k8s.io/Pause:3.10": the repository must be lowercase`}},
		{"a version tag", pauseImage, nil},
		{"a digest", "registry.k8s.io/pause@" + pauseDigest, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectProblems(t, appsv1.MyDaemonSetSpec{Image: tt.image}, tt.wantErrors) })
	}
}

func TestValidateNodeSelector(t *testing.T) {
	tests := []struct {
		name       string
		selector   map[string]string
		wantErrors []string
	}{
		{"a bad key and a bad value", map[string]string{"b@d": "ok", "ok": "b@d"},
			[]string{`spec.nodeSelector[b@d]: Invalid value: "b@d"`, `spec.nodeSelector[ok]: Invalid value: "b@d"`}},
		{"a prefix that is not a DNS subdomain", map[string]string{"Example.com/disk": "ssd"},
			[]string{`spec.nodeSelector[Example.com/disk]: Invalid value: "Example.com/disk": prefix part a lowercase RFC 1123 subdomain`}},
		{"an empty value", map[string]string{"gpu": ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectProblems(t, appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: tt.selector}, tt.wantErrors)
		})
	}
}

// Keys come back in sorted order, so that the same object always gets the same message.
func TestNodeSelectorErrorsAreSorted(t *testing.T) {
	g := NewWithT(t)
	selector := map[string]string{}
	for _, key := range strings.Split("z! y! x! w! v! u! t! s!", " ") {
		selector[key] = ""
	}
	mds := &appsv1.MyDaemonSet{Spec: appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: selector}}
	_, err := validateMyDaemonSet(mds)
	g.Expect(err).To(HaveOccurred())
	g.Expect(testenv.CauseFields(err)).To(Equal([]string{
		"spec.nodeSelector[s!]", "spec.nodeSelector[t!]", "spec.nodeSelector[u!]", "spec.nodeSelector[v!]",
		"spec.nodeSelector[w!]", "spec.nodeSelector[x!]", "spec.nodeSelector[y!]", "spec.nodeSelector[z!]",
	}))
}

func TestTheAPIServerRefusesBadMyDaemonSets(t *testing.T) {
	ns := env.WebhookNamespace(t)
	tests := []struct {
		name string
		spec map[string]any
		// refusedBy is the validating webhook that refuses the spec, or bySchema for
		// what the CRD's schema refuses before any validating webhook is called.
		refusedBy string
		field     string
		message   string
	}{
		{"no image", map[string]any{}, bySchema,
			"spec.image", "Required value"},
		{"an empty image", map[string]any{"image": ""}, bySchema,
			"spec.image", "should be at least 1 chars long"},
		{"a pull policy that does not exist", map[string]any{"image": pauseImage, "imagePullPolicy": "Sometimes"}, bySchema,
			"spec.imagePullPolicy", `Unsupported value: "Sometimes"`},
		{"an image with a space", map[string]any{"image": "pause 3.10"}, validatingWebhook,
			"spec.image", `Invalid value: "pause 3.10": must be [registry[:port]/]repository[:tag][@digest]`},
		{"an image with leading whitespace", map[string]any{"image": " " + pauseImage}, validatingWebhook,
			"spec.image", "must not have leading or trailing whitespace"},
		{"an uppercase repository", map[string]any{"image": "registry.k8s.io/Pause:3.10"}, validatingWebhook,
			"spec.image", "the repository must be lowercase"},
		{"an empty tag", map[string]any{"image": "registry.k8s.io/pause:"}, validatingWebhook,
			"spec.image", `Invalid value: "registry.k8s.io/pause:"`},
		{"a short digest", map[string]any{"image": "registry.k8s.io/pause@sha256:" + strings.Repeat("a", 40)}, validatingWebhook,
			"spec.image", "a sha256 digest has 64 lowercase hex digits"},
		{"a node selector key with a space", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"bad key": "x"}}, validatingWebhook,
			"spec.nodeSelector[bad key]", `Invalid value: "bad key": name part must consist of alphanumeric characters`},
		{"a node selector key with an empty name", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"example.com/": "x"}}, validatingWebhook,
			"spec.nodeSelector[example.com/]", "name part must be non-empty"},
		{"a node selector value that is too long", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"disk": strings.Repeat("s", 64)}}, validatingWebhook,
			"spec.nodeSelector[disk]", "must be no more than 63 bytes"},
		{"a node selector value with a !", map[string]any{"image": pauseImage, "nodeSelector": map[string]any{"disk": "ssd!"}}, validatingWebhook,
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
			err := env.Client().Create(env.Context(), obj)
			testenv.ExpectInvalid(g, err, tt.field, tt.message)
			testenv.ExpectRefusedBy(g, err, tt.refusedBy)
		})
	}
}

// All of an object's problems come back at once, so that the user fixes them in one go.
func TestEveryProblemIsReportedInOneAnswer(t *testing.T) {
	g := NewWithT(t)
	mds := newMyDaemonSet(env.WebhookNamespace(t), "many", "Pause")
	mds.Spec.NodeSelector = map[string]string{"bad key": "ssd!"}
	err := env.Client().Create(env.Context(), mds)
	g.Expect(err).To(HaveOccurred())
	g.Expect(testenv.Causes(err)).To(ConsistOf(
		HaveField("Field", "spec.image"),
		testenv.HaveCause("spec.nodeSelector[bad key]", `"bad key"`),
		testenv.HaveCause("spec.nodeSelector[bad key]", `"ssd!"`),
	), "one cause per problem; got: %v", err)
}

// An update that leaves the spec alone (a label, an annotation, the garbage collector
// removing its foregroundDeletion finalizer) goes through without a check or a warning,
// whatever the stored spec: it may predate the rules. A spec change is checked whole.
func TestValidateUpdateChecksOnlyAChangedSpec(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	validator := &MyDaemonSetCustomValidator{}
	old := &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "old"},
		Spec:       appsv1.MyDaemonSetSpec{Image: "registry.k8s.io/Pause", NodeSelector: map[string]string{"disk type": "ssd"}},
	}
	labelled := old.DeepCopy()
	labelled.Labels = map[string]string{"team": "infra"}
	labelled.Finalizers = []string{metav1.FinalizerDeleteDependents}
	warnings, err := validator.ValidateUpdate(ctx, old, labelled)
	g.Expect(err).NotTo(HaveOccurred(), "a metadata change must go through, whatever the spec")
	g.Expect(warnings).To(BeEmpty(), "no warning about a spec nobody changed")

	changed := labelled.DeepCopy()
	changed.Spec.Image = "registry.k8s.io/pause"
	_, err = validator.ValidateUpdate(ctx, labelled, changed)
	g.Expect(err).To(MatchError(ContainSubstring("spec.nodeSelector[disk type]: Invalid value")),
		"a spec change is checked whole, the old problems included")

	fixed := changed.DeepCopy()
	fixed.Spec.NodeSelector = nil
	warnings, err = validator.ValidateUpdate(ctx, changed, fixed)
	g.Expect(err).NotTo(HaveOccurred())
	createWarnings, _ := validator.ValidateCreate(ctx, fixed)
	g.Expect(warnings).To(Equal(createWarnings), "a spec change gets the warnings of a create")
}

func TestUpdatesAreValidatedToo(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	mds := newMyDaemonSet(env.WebhookNamespace(t), "update", pauseImage)
	g.Expect(env.Client().Create(ctx, mds)).To(Succeed())

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
			err := env.Client().Update(ctx, changed)
			testenv.ExpectInvalid(g, err, tt.field, tt.message)
		})
	}
	got := stored(g, mds)
	g.Expect(got.Spec.Image).To(Equal(pauseImage), "a refused update changes nothing")
	g.Expect(got.Generation).To(BeEquivalentTo(1), "a refused update changes nothing")
}

// A MyDaemonSet stored before the webhook existed (by lesson 03's manager, or while the
// configuration was missing) may break the rules. An update that leaves its spec alone
// must still go through: a user labels it, and the garbage collector removes the
// foregroundDeletion finalizer of a foreground delete, or the object never goes. A
// change of its spec must fix it.
func TestAMyDaemonSetStoredBeforeTheRulesCanStillBeLabelledAndDeleted(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	c, recorder := env.ClientWithWarnings(g)
	mds := newMyDaemonSet(env.WebhookNamespace(t), "before-the-rules", "registry.k8s.io/Pause:3.10")
	_, err := validateMyDaemonSet(mds)
	g.Expect(err).To(MatchError(ContainSubstring("spec.image")),
		"the test needs a MyDaemonSet the validator refuses; validateImage should refuse an uppercase repository")
	env.CreateWithoutValidation(t, validatingConfiguration, validatingWebhook, mds)

	patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"team":"infra"}}}`))
	g.Expect(c.Patch(ctx, stored(g, mds), patch)).To(Succeed(), "a label patch leaves the spec alone")
	g.Expect(recorder.Take()).To(BeEmpty(), "no warning about a spec the patch did not touch")

	patch = client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"nodeSelector":{"disk":"ssd"}}}`))
	err = c.Patch(ctx, stored(g, mds), patch)
	g.Expect(testenv.Causes(err)).To(ContainElement(HaveField("Field", "spec.image")),
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
