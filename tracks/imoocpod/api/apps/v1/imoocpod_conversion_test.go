package v1

import (
	"encoding/json"
	"maps"
	"testing"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	appsv2 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v2"
)

// The conversions run in the manager's conversion webhook, called by the API server for
// every read or write of an ImoocPod in a version other than the stored one (v2). These
// tests call them directly.

const pause = "registry.k8s.io/pause:3.10"

func TestConvertToMakesTheImageTheTemplatesOnlyContainer(t *testing.T) {
	src := &ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Labels: map[string]string{"team": "a"}, ResourceVersion: "7"},
		Spec:       ImoocPodSpec{Replicas: ptr.To[int32](3), Image: pause},
		Status:     someStatus(),
	}
	var dst appsv2.ImoocPod
	if err := src.ConvertTo(&dst); err != nil {
		t.Fatalf("ConvertTo: %v", err)
	}
	want := appsv2.ImoocPod{
		ObjectMeta: src.ObjectMeta,
		Spec: appsv2.ImoocPodSpec{Replicas: ptr.To[int32](3), Template: appsv2.PodTemplate{
			Spec: appsv2.PodTemplateSpec{Containers: []corev1.Container{{Name: ContainerName, Image: pause}}},
		}},
		Status: appsv2.ImoocPodStatus(someStatus()),
	}
	if !equality.Semantic.DeepEqual(&dst, &want) {
		t.Errorf("a v1 ImoocPod converted to v2: a template with one container, %q, running spec.image; "+
			"the metadata, replicas and status as they were:\n got: %s\nwant: %s", ContainerName, show(&dst), show(&want))
	}
	dst.Labels["team"] = "b"
	if src.Labels["team"] != "a" {
		t.Errorf("changing the converted ImoocPod's labels changed the source's: copy the metadata (DeepCopy)")
	}
}

func TestConvertFromTakesTheImageOfTheFirstContainer(t *testing.T) {
	src := &appsv2.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Annotations: map[string]string{"note": "x"}},
		Spec: appsv2.ImoocPodSpec{Replicas: ptr.To[int32](2), Template: appsv2.PodTemplate{
			Spec: appsv2.PodTemplateSpec{Containers: []corev1.Container{{Name: ContainerName, Image: pause}}},
		}},
		Status: appsv2.ImoocPodStatus(someStatus()),
	}
	var dst ImoocPod
	if err := dst.ConvertFrom(src); err != nil {
		t.Fatalf("ConvertFrom: %v", err)
	}
	want := ImoocPod{
		ObjectMeta: src.ObjectMeta,
		Spec:       ImoocPodSpec{Replicas: ptr.To[int32](2), Image: pause},
		Status:     someStatus(),
	}
	if !equality.Semantic.DeepEqual(&dst, &want) {
		t.Errorf("a v2 ImoocPod converted to v1: spec.image from the first container; the metadata, "+
			"replicas and status as they were:\n got: %s\nwant: %s", show(&dst), show(&want))
	}
}

// FuzzRoundTripThroughV2 converts v1 ImoocPods to v2 and back: what a v1 client writes
// must read back the same, now that the API server stores v2. A TemplateAnnotation that
// holds a template v2 accepts reads back the same in v2; one that does not is ignored,
// and goes at the first write in v2.
func FuzzRoundTripThroughV2(f *testing.F) {
	f.Add(int32(3), false, pause, "team", "a")
	f.Add(int32(0), false, "", "", "")
	f.Add(int32(-1), false, "nginx@sha256:0", "note", `{"spec":{}}`)
	f.Add(int32(0), true, pause, "", "")
	f.Add(int32(1), false, pause, TemplateAnnotation, `{"metadata":{"labels":{"tier":"web"}},"spec":{"containers":[{"name":"app","image":"x"}]}}`)
	f.Add(int32(1), false, pause, TemplateAnnotation, `{"spec":{"containers":[{"name":"app","image":"x"},{"name":"sidecar","image":"busybox"}]}}`)
	f.Add(int32(1), false, pause, TemplateAnnotation, `{"spec":{"containers":[{"name":"app","image":"x","ports":[{"containerPort":80}]}]}}`)
	f.Add(int32(1), false, pause, TemplateAnnotation, `{"spec":{"containers":[{"name":"app","image":"x"},{"name":"sidecar"}]}}`)
	f.Add(int32(1), false, pause, TemplateAnnotation, `{"spec":{"containers":[{"name":"app","image":"x"},{"name":"app","image":"y"}]}}`)
	f.Add(int32(1), false, pause, TemplateAnnotation, `{"spec":{"containers":[]}}`)
	f.Add(int32(1), false, pause, TemplateAnnotation, `{`)
	f.Fuzz(func(t *testing.T, replicas int32, noReplicas bool, image, key, value string) {
		if !validUTF8(image, key, value) {
			t.Skip("the API server holds JSON: valid UTF-8 only")
		}
		v1 := &ImoocPod{
			ObjectMeta: metav1.ObjectMeta{Name: "fuzz", Annotations: map[string]string{key: value}},
			Spec:       ImoocPodSpec{Replicas: ptr.To(replicas), Image: image},
			Status:     someStatus(),
		}
		if noReplicas {
			v1.Spec.Replicas = nil
		}
		var v2 appsv2.ImoocPod
		if err := v1.ConvertTo(&v2); err != nil {
			t.Fatalf("ConvertTo failed: a v1 ImoocPod stored with this would be unreadable, and every list of "+
				"ImoocPods with it: %v\nv1: %s", err, show(v1))
		}
		var back ImoocPod
		if err := back.ConvertFrom(&v2); err != nil {
			t.Fatalf("ConvertFrom: %v", err)
		}
		if key != TemplateAnnotation {
			if !equality.Semantic.DeepEqual(v1, &back) {
				t.Errorf("v1 -> v2 -> v1 changed the ImoocPod:\n  v1: %s\n  v2: %s\nback: %s", show(v1), show(&v2), show(&back))
			}
			return
		}
		if _, errs := ParseTemplateAnnotation(value); len(errs) > 0 {
			// Ignored: v2 runs what spec.image says, and keeps the annotation for the
			// controller to report; v1 reads it no more.
			want := v1.DeepCopy()
			delete(want.Annotations, TemplateAnnotation)
			if v2.Annotations[TemplateAnnotation] != value || !equality.Semantic.DeepEqual(v2.Spec.Template, templateOf(image)) ||
				!equality.Semantic.DeepEqual(want, &back) {
				t.Errorf("the %s annotation, which v2 cannot use (%v), should be ignored: v2 with the template spec.image says, "+
					"the annotation left on it for the controller to report, and v1 back without it (ConvertFrom drops one "+
					"that a v2 client wrote):\n  v1: %s\n  v2: %s\nback: %s",
					TemplateAnnotation, errs.ToAggregate(), show(v1), show(&v2), show(&back))
			}
			return
		}
		// The saved JSON comes back as ConvertFrom writes it, not as the user did: what
		// must not change is what it says, in v2.
		var again appsv2.ImoocPod
		if err := back.ConvertTo(&again); err != nil {
			t.Fatalf("ConvertTo: %v", err)
		}
		if !equality.Semantic.DeepEqual(&v2, &again) {
			t.Errorf("v1 -> v2 -> v1 -> v2 changed the ImoocPod, whose template travels in the %s annotation:\n  v1: %s\n  v2: %s\n"+
				"back: %s\nagain: %s", TemplateAnnotation, show(v1), show(&v2), show(&back), show(&again))
		}
	})
}

// FuzzRoundTripThroughV1 converts v2 ImoocPods to v1 and back, as the API server does
// for a v1 client that reads an ImoocPod and writes it back: nothing only v2 can say may
// be lost on the way, and nothing else may come back. Anyone may write annotations: a v2
// client may write a TemplateAnnotation too, which only v1's view may have.
func FuzzRoundTripThroughV1(f *testing.F) {
	f.Add(pause, ContainerName, "", "", "", "", int32(0), "", "")
	f.Add(pause, ContainerName, "tier", "web", "", "", int32(0), "", "")
	f.Add(pause, "main", "", "", "", "", int32(0), "", "")
	f.Add(pause, ContainerName, "", "", "sidecar", "busybox", int32(0), "", "")
	f.Add(pause, ContainerName, "", "", "", "", int32(8080), "note", "x")
	f.Add("", "", "", "", "", "", int32(0), "", "")
	f.Add("\xff", ContainerName, "", "", "", "", int32(0), "", "")
	f.Add(pause, ContainerName, "", "", "", "", int32(0), TemplateAnnotation,
		`{"metadata":{"labels":{"tier":"web"}},"spec":{"containers":[{"name":"app"},{"name":"sidecar","image":"busybox"}]}}`)
	f.Add(pause, ContainerName, "", "", "", "", int32(0), TemplateAnnotation, "{")
	f.Add(pause, ContainerName, "tier", "web", "", "", int32(0), TemplateAnnotation, "{")
	f.Add(pause, ContainerName, "", "", ContainerName, "busybox", int32(0), "", "")
	f.Add(pause, ContainerName, "", "", "sidecar", "", int32(0), "", "")
	f.Fuzz(func(t *testing.T, image, name, labelKey, labelValue, secondName, secondImage string, port int32, annotationKey, annotationValue string) {
		if !validUTF8(image, name, labelKey, labelValue, secondName, secondImage, annotationKey, annotationValue) {
			t.Skip("the API server holds JSON: valid UTF-8 only")
		}
		first := corev1.Container{Name: name, Image: image}
		if port != 0 {
			first.Ports = []corev1.ContainerPort{{ContainerPort: port}}
		}
		v2 := &appsv2.ImoocPod{
			ObjectMeta: metav1.ObjectMeta{Name: "fuzz", Annotations: map[string]string{annotationKey: annotationValue}},
			Spec: appsv2.ImoocPodSpec{Replicas: ptr.To[int32](1), Template: appsv2.PodTemplate{
				Spec: appsv2.PodTemplateSpec{Containers: []corev1.Container{first}},
			}},
			Status: appsv2.ImoocPodStatus(someStatus()),
		}
		if labelKey != "" {
			v2.Spec.Template.Metadata.Labels = map[string]string{labelKey: labelValue}
		}
		switch {
		case secondName == "" && secondImage == "" && image == "" && name == "":
			v2.Spec.Template.Spec.Containers = nil
		case secondName != "" || secondImage != "":
			v2.Spec.Template.Spec.Containers = append(v2.Spec.Template.Spec.Containers,
				corev1.Container{Name: secondName, Image: secondImage})
		}
		if errs := appsv2.ValidateTemplate(&v2.Spec.Template, field.NewPath("spec", "template")); len(errs) > 0 {
			t.Skip("the API server refuses this v2 ImoocPod: no conversion ever sees it")
		}
		var v1 ImoocPod
		if err := v1.ConvertFrom(v2); err != nil {
			t.Fatalf("ConvertFrom: %v", err)
		}
		var back appsv2.ImoocPod
		if err := v1.ConvertTo(&back); err != nil {
			t.Fatalf("v2 -> v1 -> v2 failed: the v1 view of a valid v2 ImoocPod cannot be written back: %v; the %s "+
				"annotation is v1's alone (ConvertFrom drops one that a v2 client wrote):\n  v2: %s\n  v1: %s",
				err, TemplateAnnotation, show(v2), show(&v1))
		}
		// A TemplateAnnotation a v2 client wrote does not come back: the API server's
		// round-trip annotations do not either.
		want := v2.DeepCopy()
		delete(want.Annotations, TemplateAnnotation)
		if !equality.Semantic.DeepEqual(want, &back) {
			t.Errorf("v2 -> v1 -> v2 changed the ImoocPod: what only v2 can say travels through v1 in the %s "+
				"annotation, which is v1's alone (ConvertFrom drops one that a v2 client wrote):\n  v2: %s\n  v1: %s\nback: %s",
				TemplateAnnotation, show(v2), show(&v1), show(&back))
		}
	})
}

// A v1 client changes the image of an ImoocPod whose template has labels: the new image
// is written, and the labels stay.
func TestAV1ClientsNewImageWinsAndTheLabelsStay(t *testing.T) {
	v2 := &appsv2.ImoocPod{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv2.ImoocPodSpec{Replicas: ptr.To[int32](1), Template: appsv2.PodTemplate{
			Metadata: appsv2.PodTemplateMetadata{Labels: map[string]string{"tier": "web"}},
			Spec:     appsv2.PodTemplateSpec{Containers: []corev1.Container{{Name: ContainerName, Image: pause}}},
		}},
	}
	var v1 ImoocPod
	if err := v1.ConvertFrom(v2); err != nil {
		t.Fatalf("ConvertFrom: %v", err)
	}
	v1.Spec.Image = "registry.k8s.io/pause:3.9"
	var written appsv2.ImoocPod
	if err := v1.ConvertTo(&written); err != nil {
		t.Fatalf("ConvertTo: %v", err)
	}
	if got := written.Spec.Template.Spec.Containers; len(got) != 1 || got[0].Image != "registry.k8s.io/pause:3.9" {
		t.Errorf("a v1 client's write of spec.image: want the v1 client's new image in the first container, got %s", show(got))
	}
	if got := written.Spec.Template.Metadata.Labels; !maps.Equal(got, map[string]string{"tier": "web"}) {
		t.Errorf("a v1 client's write of spec.image: want the template's labels, which only the %s annotation "+
			"carries through v1, got %v", TemplateAnnotation, got)
	}
	if _, ok := written.Annotations[TemplateAnnotation]; ok {
		t.Errorf("a v1 client's write, in v2: the %s annotation is v1's alone and should be gone", TemplateAnnotation)
	}
}

// A v1 ImoocPod stored before v1's validating webhook existed may hold anything in its
// TemplateAnnotation. The API server converts it at every read: ConvertTo must not fail on
// it, nor use a template v2 would refuse, or the ImoocPod and every list of ImoocPods
// become unreadable. The template is then what spec.image says, and the annotation stays,
// for the controller to report. An annotation that holds a template v2 accepts is used.
func TestConvertToUsesTheTemplateAnnotationOnlyWhenV2AcceptsIt(t *testing.T) {
	used := `{"metadata":{"labels":{"tier":"web"}},"spec":{"containers":[{"name":"app","image":"x"}]}}`
	for name, saved := range map[string]string{
		"a template v2 accepts":          used,
		"not JSON":                       "{",
		"no container":                   `{"spec":{"containers":[]}}`,
		"a container without an image":   `{"spec":{"containers":[{"name":"app","image":"x"},{"name":"sidecar"}]}}`,
		"two containers of one name":     `{"spec":{"containers":[{"name":"app","image":"x"},{"name":"app","image":"y"}]}}`,
		"a template of the wrong shape":  `{"spec":{"containers":"app"}}`,
		"a JSON value that is no object": `"app"`,
	} {
		t.Run(name, func(t *testing.T) {
			src := &ImoocPod{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Annotations: map[string]string{TemplateAnnotation: saved}},
				Spec:       ImoocPodSpec{Replicas: ptr.To[int32](2), Image: pause},
			}
			var dst appsv2.ImoocPod
			if err := src.ConvertTo(&dst); err != nil {
				t.Fatalf("ConvertTo failed on a v1 ImoocPod whose %s annotation holds %s: the API server could then read "+
					"it in no version, nor list any ImoocPod; ignore the annotation instead: %v", TemplateAnnotation, saved, err)
			}
			if saved == used {
				want := templateOf(pause)
				want.Metadata.Labels = map[string]string{"tier": "web"}
				if !equality.Semantic.DeepEqual(dst.Spec.Template, want) || len(dst.Annotations) > 0 {
					t.Errorf("a v1 ImoocPod whose %s annotation holds %s, converted to v2: want the saved template, with "+
						"spec.image in its first container, and no annotation; got template %s, annotations %v",
						TemplateAnnotation, saved, show(dst.Spec.Template), dst.Annotations)
				}
				return
			}
			if want := templateOf(pause); !equality.Semantic.DeepEqual(dst.Spec.Template, want) {
				t.Errorf("a v1 ImoocPod whose %s annotation holds %s, converted to v2: want the template spec.image says, "+
					"%s; got %s", TemplateAnnotation, saved, show(want), show(dst.Spec.Template))
			}
			if dst.Annotations[TemplateAnnotation] != saved {
				t.Errorf("an annotation the conversion ignored should stay on the v2 ImoocPod, for the controller to report; "+
					"got annotations %v", dst.Annotations)
			}
		})
	}
}

// validUTF8 says whether every string is valid UTF-8, as every string the API server
// hands a conversion is: JSON replaces anything else.
func validUTF8(strings ...string) bool {
	for _, s := range strings {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func someStatus() ImoocPodStatus {
	return ImoocPodStatus{
		Replicas: 3, ReadyReplicas: 2, Selector: "apps.workshop.dev/imoocpod=web", ObservedGeneration: 4,
		Conditions: []metav1.Condition{{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: ReasonPodsNotReady, Message: "2 of 3 pods are ready"}},
	}
}

// show prints an ImoocPod's metadata, spec and status in one line of JSON.
func show(obj any) string {
	out, err := json.Marshal(obj)
	if err != nil {
		return err.Error()
	}
	return string(out)
}
