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
	// Copy the metadata (DeepCopy: the maps must not be shared), spec.replicas and
	// the status, which v2 has unchanged, and make spec.image the template's one
	// container (templateOf). Then call restoreTemplate(dst, src.Spec.Image), which
	// task 3 writes, and return nil: a conversion to v2 runs at every read of an object
	// stored in v1, and must not fail on what a user stored. See "Hub and spokes" in
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
	// Copy the metadata, spec.replicas and the status; spec.image is the image of the
	// template's first container ("" when there is none). Then return
	// saveTemplate(dst, src.Spec.Template), which task 3 writes.
	return fmt.Errorf("converting from %T is not written yet", src)
}

// saveTemplate keeps template in dst's TemplateAnnotation unless dst's spec.image says
// it all.
func saveTemplate(dst *ImoocPod, template appsv2.PodTemplate) error {
	// TODO(3): Keep what v1 cannot say in an annotation.
	// Drop any TemplateAnnotation dst got with v2's metadata. Then, unless the
	// template is exactly what dst's spec.image says (templateOf), save it as JSON
	// in dst's TemplateAnnotation, so that a v1 client that writes the object back
	// sends it back too. See "Nothing lost" in docs/lesson-13.md.
	return nil
}

// restoreTemplate gives dst the template saved in its TemplateAnnotation, if any, with
// image, the v1 spec.image, in its first container, and removes the annotation. An
// annotation that holds no template v2 accepts is ignored and left on dst, whose
// template stays the one spec.image says: the controller reports it in the condition
// TemplateAnnotationIgnored.
func restoreTemplate(dst *appsv2.ImoocPod, image string) {
	// TODO(3): Restore the template from dst's TemplateAnnotation, if it has one and it
	// holds a template v2 accepts (ParseTemplateAnnotation). Ignore any other,
	// and leave it on dst: it was stored before anything checked it, and a
	// conversion that fails makes every list of ImoocPods fail. The v1
	// spec.image (image) wins over the saved first container's image: a v1
	// client may have changed it. Remove a restored annotation: v2 says it all.
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
