//stage:4

package v1

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/04-mydaemonset-webhooks/api/apps/v1"
)

// The webhooks' functions called directly, without an API server: the cases the CRD's
// schema refuses first (an empty image) show here too, and a failure names the function.

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

func TestValidateMyDaemonSet(t *testing.T) {
	tests := []struct {
		name         string
		spec         appsv1.MyDaemonSetSpec
		wantErrors   []string
		wantWarnings int
	}{
		{"a valid spec", appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: map[string]string{"kubernetes.io/os": "linux", "gpu": ""}}, nil, 0},
		{"no image", appsv1.MyDaemonSetSpec{}, []string{"spec.image: Required value"}, 0},
		{"a bad image", appsv1.MyDaemonSetSpec{Image: "pause:"}, []string{`spec.image: Invalid value: "pause:"`}, 0},
		{"a bad key and a bad value", appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: map[string]string{"b@d": "ok", "ok": "b@d"}},
			[]string{`spec.nodeSelector[b@d]: Invalid value: "b@d"`, `spec.nodeSelector[ok]: Invalid value: "b@d"`}, 0},
		{"a prefix that is not a DNS subdomain", appsv1.MyDaemonSetSpec{Image: pauseImage, NodeSelector: map[string]string{"Example.com/disk": "ssd"}},
			[]string{`spec.nodeSelector[Example.com/disk]: Invalid value: "Example.com/disk": prefix part a lowercase RFC 1123 subdomain`}, 0},
		{"a pull policy that does not exist", appsv1.MyDaemonSetSpec{Image: pauseImage, ImagePullPolicy: "Sometimes"},
			[]string{`spec.imagePullPolicy: Unsupported value: "Sometimes"`}, 0},
		{"a floating image", appsv1.MyDaemonSetSpec{Image: "busybox"}, nil, 1},
		{"valid tolerations", appsv1.MyDaemonSetSpec{Image: pauseImage, Tolerations: []corev1.Toleration{
			{Key: "example.com/dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
			{Operator: corev1.TolerationOpExists},
		}}, nil, 0},
		{"bad tolerations", appsv1.MyDaemonSetSpec{Image: pauseImage, Tolerations: []corev1.Toleration{
			{Key: "b@d", Operator: corev1.TolerationOpExists, Value: "x"},
			{Value: "v", Effect: "Sometimes", TolerationSeconds: ptr.To[int64](60)},
		}}, []string{
			`spec.tolerations[0].key: Invalid value: "b@d"`,
			`spec.tolerations[0].value: Invalid value: "x": a toleration with the operator Exists has no value`,
			`spec.tolerations[1].operator: Invalid value: "": a toleration without a key must have the operator Exists`,
			`spec.tolerations[1].effect: Unsupported value: "Sometimes"`,
			`spec.tolerations[1].tolerationSeconds: Forbidden`,
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			mds := &appsv1.MyDaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Spec: tt.spec}
			warnings, err := validateMyDaemonSet(mds)
			g.Expect(warnings).To(HaveLen(tt.wantWarnings), "warnings")
			if tt.wantErrors == nil {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "validateMyDaemonSet should return apierrors.NewInvalid, got %v", err)
			g.Expect(err.Error()).To(HavePrefix(`MyDaemonSet.apps.workshop.dev "demo" is invalid`))
			for _, want := range tt.wantErrors {
				g.Expect(err.Error()).To(ContainSubstring(want))
			}
			g.Expect(causes(err)).To(HaveLen(len(tt.wantErrors)), "one cause per problem: %v", err)
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
	var fields []string
	for _, cause := range causes(err) {
		fields = append(fields, cause.Field)
	}
	g.Expect(fields).To(Equal([]string{
		"spec.nodeSelector[s!]", "spec.nodeSelector[t!]", "spec.nodeSelector[u!]", "spec.nodeSelector[v!]",
		"spec.nodeSelector[w!]", "spec.nodeSelector[x!]", "spec.nodeSelector[y!]", "spec.nodeSelector[z!]",
	}))
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
	g.Expect(warnings).To(ConsistOf(HavePrefix(`spec.image: "registry.k8s.io/pause" has no tag`)),
		"a spec change gets the warnings of a create")
}

//stage:end
