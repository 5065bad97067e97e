package v1

import (
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v1"
	appsv2 "github.com/kube-workshop/operator-workshop/solutions/13-imoocpod-versions/api/apps/v2"
)

// An ImoocPod written in one version reads in the other: the API server stores v2 and
// asks the manager's conversion webhook for v1.
func TestBothVersionsReadEveryImoocPod(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	old := &appsv1.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "written-in-v1"},
		Spec:       appsv1.ImoocPodSpec{Replicas: ptr.To[int32](2), Image: "registry.k8s.io/pause:3.10"},
	}
	g.Expect(env.Client().Create(env.Context(), old)).To(Succeed(), "creating an ImoocPod in v1 (the API server "+
		"converts it to v2, the stored version, through the manager's /convert)")
	var asV2 appsv2.ImoocPod
	g.Expect(env.Client().Get(env.Context(), client.ObjectKeyFromObject(old), &asV2)).To(Succeed())
	g.Expect(asV2.Spec.Template.Spec.Containers).To(ConsistOf(
		HaveField("Image", "registry.k8s.io/pause:3.10")), "the v1 ImoocPod read as v2: its image in the template")

	current := withTemplateLabels(ns, "written-in-v2")
	g.Expect(env.Client().Create(env.Context(), current)).To(Succeed())
	var asV1 appsv1.ImoocPod
	g.Expect(env.Client().Get(env.Context(), client.ObjectKeyFromObject(current), &asV1)).To(Succeed(),
		"reading a v2 ImoocPod as v1")
	g.Expect(asV1.Spec.Image).To(Equal("registry.k8s.io/pause:3.10"), "the v2 ImoocPod read as v1: spec.image")
	g.Expect(asV1.Annotations).To(HaveKey(appsv1.TemplateAnnotation), "what v1 cannot say, in the annotation")
}

// A v1 client reads an ImoocPod, changes its image and writes it back (an Update, the
// whole object): the template's labels, which v1 cannot say, are still there.
func TestAV1ClientsUpdateKeepsTheTemplateLabels(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	ip := withTemplateLabels(ns, "web")
	g.Expect(env.Client().Create(env.Context(), ip)).To(Succeed())

	var v1 appsv1.ImoocPod
	g.Expect(env.Client().Get(env.Context(), client.ObjectKeyFromObject(ip), &v1)).To(Succeed())
	v1.Spec.Image = "registry.k8s.io/pause:3.9"
	g.Expect(env.Client().Update(env.Context(), &v1)).To(Succeed(), "a v1 client's update")

	var got appsv2.ImoocPod
	g.Expect(env.Client().Get(env.Context(), client.ObjectKeyFromObject(ip), &got)).To(Succeed())
	g.Expect(got.Spec.Template.Metadata.Labels).To(Equal(map[string]string{"tier": "web"}),
		"the template's labels after a v1 client's update")
	g.Expect(got.Spec.Template.Spec.Containers).To(ConsistOf(HaveField("Image", "registry.k8s.io/pause:3.9")),
		"the v1 client's new image")
	g.Expect(got.Annotations).NotTo(HaveKey(appsv1.TemplateAnnotation), "the annotation is v1's: v2 says it all")
}

// withTemplateLabels returns a v2 ImoocPod of one pod whose template has a label, which
// v1 cannot say.
func withTemplateLabels(ns, name string) *appsv2.ImoocPod {
	return &appsv2.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv2.ImoocPodSpec{Replicas: ptr.To[int32](1), Template: appsv2.PodTemplate{
			Metadata: appsv2.PodTemplateMetadata{Labels: map[string]string{"tier": "web"}},
			Spec:     appsv2.PodTemplateSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
		}},
	}
}

// A container without an image makes no pod: the API server refuses the pod, on every
// pass. v2 refuses such an ImoocPod when it is written, naming the field, as v1 refuses an
// empty spec.image; and v1's view of it would show an empty image that v1's default
// replaces at the next v1 write.
func TestAV2ContainerWithoutAnImageIsRefused(t *testing.T) {
	g := NewWithT(t)
	ip := withTemplateLabels(env.WebhookNamespace(t), "no-image")
	ip.Spec.Template.Spec.Containers = append(ip.Spec.Template.Spec.Containers, corev1.Container{Name: "sidecar"})
	err := env.Client().Create(env.Context(), ip)
	g.Expect(err).To(HaveOccurred(), "an ImoocPod whose container sidecar has no image was stored")
	g.Expect(err.Error()).To(ContainSubstring("spec.template.spec.containers"), "the error should name the field")
	g.Expect(err.Error()).To(ContainSubstring("every container needs an image"), err.Error())
}

// v1 says its template in the apps.workshop.dev/v2-template annotation, a string that
// no schema reads: the API server validates a v1 write in v1, then stores it converted
// to v2, unchecked. What v2 refuses must be refused in v1 too, naming the field, or an
// ImoocPod whose pods the API server refuses is stored through v1. Each template below
// is refused by v2's schema, then written through v1, by a create and by an update.
func TestAV1WriteIsRefusedWhatV2Refuses(t *testing.T) {
	ns := env.WebhookNamespace(t)
	for name, tc := range map[string]struct {
		containers []corev1.Container
		field      string
	}{
		"no container": {nil, "spec.containers"},
		"a container without an image": {
			[]corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}, {Name: "sidecar"}}, "spec.containers[1].image",
		},
		"two containers of one name": {
			[]corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}, {Name: "app", Image: "busybox"}}, "spec.containers[1]",
		},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			inV2 := withTemplateLabels(ns, "refused-in-v2")
			inV2.Spec.Template.Spec.Containers = tc.containers
			g.Expect(env.Client().Create(env.Context(), inV2, client.DryRunAll)).NotTo(Succeed(), "v2's schema should refuse %s", name)

			template, err := json.Marshal(inV2.Spec.Template)
			g.Expect(err).NotTo(HaveOccurred())
			inV1 := &appsv1.ImoocPod{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "in-v1",
					Annotations: map[string]string{appsv1.TemplateAnnotation: string(template)}},
				Spec: appsv1.ImoocPodSpec{Replicas: ptr.To[int32](1), Image: "registry.k8s.io/pause:3.10"},
			}
			want := "metadata.annotations[" + appsv1.TemplateAnnotation + "]." + tc.field
			err = env.Client().Create(env.Context(), inV1.DeepCopy(), client.DryRunAll)
			g.Expect(err).To(HaveOccurred(), "a v1 create whose %s annotation holds %s was accepted: v2's schema "+
				"refuses it, and v1's validating webhook should too", appsv1.TemplateAnnotation, name)
			g.Expect(err.Error()).To(ContainSubstring(want), "the error should name the field")

			valid := inV1.DeepCopy()
			valid.Name = "updated-in-v1-" + strings.ReplaceAll(name, " ", "-")
			delete(valid.Annotations, appsv1.TemplateAnnotation)
			g.Expect(env.Client().Create(env.Context(), valid)).To(Succeed())
			valid.Annotations = inV1.Annotations
			err = env.Client().Update(env.Context(), valid)
			g.Expect(err).To(HaveOccurred(), "a v1 update that writes %s into the %s annotation was accepted",
				name, appsv1.TemplateAnnotation)
			g.Expect(err.Error()).To(ContainSubstring(want), "the error should name the field")
		})
	}
}

// An annotation that is not JSON is refused as well, naming it.
func TestAV1WriteOfATemplateAnnotationThatIsNotJSONIsRefused(t *testing.T) {
	g := NewWithT(t)
	ip := &appsv1.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: env.WebhookNamespace(t), Name: "not-json",
			Annotations: map[string]string{appsv1.TemplateAnnotation: "{"}},
		Spec: appsv1.ImoocPodSpec{Replicas: ptr.To[int32](1), Image: "registry.k8s.io/pause:3.10"},
	}
	err := env.Client().Create(env.Context(), ip)
	g.Expect(err).To(HaveOccurred(), "a v1 ImoocPod whose %s annotation is not JSON was stored", appsv1.TemplateAnnotation)
	g.Expect(err.Error()).To(ContainSubstring("metadata.annotations["+appsv1.TemplateAnnotation+"]"),
		"the error should name the annotation")
}
