package v1

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	appsv2 "github.com/kube-workshop/operator-workshop/lessons/13-imoocpod-versions/api/apps/v2"
)

// TemplateAnnotation holds, on a v1 ImoocPod, the v2 template as JSON when spec.image
// alone cannot say it (labels, a second container, ports, ...). A v1 client that reads an
// ImoocPod, changes it and writes it back sends the annotation back unchanged, and the
// conversion to v2 restores the template from it: nothing v2 holds is lost.
const TemplateAnnotation = "apps.workshop.dev/v2-template"

// ContainerName is the name of the one container a v1 ImoocPod describes.
const ContainerName = "app"

// ConvertTo converts this v1 ImoocPod to the hub, v2. It never fails on what a user
// stored: the API server converts every ImoocPod etcd still holds in v1 at every read,
// and one that cannot be converted fails every list of ImoocPods, the controller's too.
func (src *ImoocPod) ConvertTo(dstRaw conversion.Hub) error {
	dst, ok := dstRaw.(*appsv2.ImoocPod)
	if !ok {
		return fmt.Errorf("converting ImoocPod %s/%s to v2: got a %T", src.Namespace, src.Name, dstRaw)
	}
	// TODO(1): Convert a v1 ImoocPod to v2.
	// ConvertTo gives v2 all that v1 holds: the metadata (not shared with src),
	// spec.replicas, the status, and spec.image as the template's one container; then
	// restoreTemplate (task 3) adds what the annotation saved. It returns no error: it
	// runs at every read of an object stored in v1. See "Hub and spokes" in
	// docs/lesson-13.md.
	return fmt.Errorf("converting to %T is not written yet", dst)
}

// ConvertFrom converts the hub, v2, to this v1 ImoocPod.
func (dst *ImoocPod) ConvertFrom(srcRaw conversion.Hub) error {
	src, ok := srcRaw.(*appsv2.ImoocPod)
	if !ok {
		return fmt.Errorf("converting to ImoocPod %s/%s from v2: got a %T", dst.Namespace, dst.Name, srcRaw)
	}
	// TODO(2): Convert a v2 ImoocPod to v1.
	// ConvertFrom gives v1 the metadata, spec.replicas, the status and, as spec.image, the
	// image of the template's first container ("" when there is none, without a panic);
	// saveTemplate (task 3) keeps the rest, and its error is ConvertFrom's. See "Hub and
	// spokes" in docs/lesson-13.md.
	return fmt.Errorf("converting from %T is not written yet", src)
}

// saveTemplate keeps template in dst's TemplateAnnotation unless dst's spec.image says
// it all.
func saveTemplate(dst *ImoocPod, template appsv2.PodTemplate) error {
	// TODO(3): Keep what v1 cannot say in an annotation.
	// A v2 ImoocPod converted to v1 and back comes back unchanged, and a v1 client that
	// writes it back keeps what it never saw. saveTemplate stores the template in
	// TemplateAnnotation when dst's spec.image cannot say it all, after dropping any
	// TemplateAnnotation that came with v2's metadata. See "Nothing lost" in
	// docs/lesson-13.md.
	return nil
}

// restoreTemplate gives dst the template saved in its TemplateAnnotation, if any, with
// image, the v1 spec.image, in its first container, and removes the annotation. An
// annotation that holds no template v2 accepts is ignored and left on dst, whose
// template stays the one spec.image says: the controller reports it in the condition
// TemplateAnnotationIgnored.
func restoreTemplate(dst *appsv2.ImoocPod, image string) {
	// TODO(3): Restore the template saved in dst's TemplateAnnotation, when it holds a
	// template v2 accepts, with the v1 spec.image (image) in its first container:
	// a v1 client may have changed it. Then remove the annotation: v2 says it
	// all. Ignore any other annotation and leave it on dst: a conversion that
	// fails makes every list of ImoocPods fail.
}

// ParseTemplateAnnotation reads the template a TemplateAnnotation holds and checks it as
// v2's schema would (appsv2.ValidateTemplate). Each error names the field, under
// metadata.annotations[apps.workshop.dev/v2-template]. v1's validating webhook refuses
// a write with such errors; the conversion to v2 ignores an annotation that has them.
func ParseTemplateAnnotation(saved string) (appsv2.PodTemplate, field.ErrorList) {
	path := field.NewPath("metadata", "annotations").Key(TemplateAnnotation)
	var template appsv2.PodTemplate
	if err := json.Unmarshal([]byte(saved), &template); err != nil {
		return template, field.ErrorList{field.Invalid(path, saved, "not the JSON of a v2 pod template: "+err.Error())}
	}
	return template, appsv2.ValidateTemplate(&template, path)
}

// templateOf returns the v2 template that a v1 spec.image says: one container, named
// ContainerName, running image.
func templateOf(image string) appsv2.PodTemplate {
	return appsv2.PodTemplate{Spec: appsv2.PodTemplateSpec{
		Containers: []corev1.Container{{Name: ContainerName, Image: image}},
	}}
}
