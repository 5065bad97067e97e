package v1

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/conversion"

	appsv2 "github.com/kube-workshop/operator-workshop/tracks/imoocpod/api/apps/v2"
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
	//lesson:13.1
	//lesson:stub return fmt.Errorf("converting to %T is not written yet", dst)
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	dst.Spec.Replicas = src.Spec.Replicas
	dst.Spec.Template = templateOf(src.Spec.Image)
	dst.Status = appsv2.ImoocPodStatus(*src.Status.DeepCopy())
	restoreTemplate(dst, src.Spec.Image)
	return nil
	//lesson:end
}

// ConvertFrom converts the hub, v2, to this v1 ImoocPod.
func (dst *ImoocPod) ConvertFrom(srcRaw conversion.Hub) error {
	src, ok := srcRaw.(*appsv2.ImoocPod)
	if !ok {
		return fmt.Errorf("converting to ImoocPod %s/%s from v2: got a %T", dst.Namespace, dst.Name, srcRaw)
	}
	//lesson:13.2
	//lesson:stub return fmt.Errorf("converting from %T is not written yet", src)
	dst.ObjectMeta = *src.ObjectMeta.DeepCopy()
	dst.Spec.Replicas = src.Spec.Replicas
	dst.Spec.Image = ""
	if containers := src.Spec.Template.Spec.Containers; len(containers) > 0 {
		dst.Spec.Image = containers[0].Image
	}
	dst.Status = ImoocPodStatus(*src.Status.DeepCopy())
	return saveTemplate(dst, src.Spec.Template)
	//lesson:end
}

// saveTemplate keeps template in dst's TemplateAnnotation unless dst's spec.image says
// it all.
func saveTemplate(dst *ImoocPod, template appsv2.PodTemplate) error {
	//lesson:13.3
	//lesson:stub return nil
	// A TemplateAnnotation that dst already has came from v2, where anyone may write
	// annotations: it is not this template, and ConvertTo would restore it. Drop it, as
	// Kubernetes drops its round-trip annotations on the way to an older version.
	delete(dst.Annotations, TemplateAnnotation)
	if equality.Semantic.DeepEqual(template, templateOf(dst.Spec.Image)) {
		return nil
	}
	saved, err := json.Marshal(template)
	if err != nil {
		return fmt.Errorf("converting ImoocPod %s/%s to v1: %w", dst.Namespace, dst.Name, err)
	}
	if dst.Annotations == nil {
		dst.Annotations = map[string]string{}
	}
	dst.Annotations[TemplateAnnotation] = string(saved)
	return nil
	//lesson:end
}

// restoreTemplate gives dst the template saved in its TemplateAnnotation, if any, with
// image, the v1 spec.image, in its first container, and removes the annotation. An
// annotation that holds no template v2 accepts is ignored and left on dst, whose
// template stays the one spec.image says: the controller reports it in the condition
// TemplateAnnotationIgnored.
func restoreTemplate(dst *appsv2.ImoocPod, image string) {
	//lesson:13.3 restore
	saved, ok := dst.Annotations[TemplateAnnotation]
	if !ok {
		return
	}
	// Anyone who may write an ImoocPod may write this annotation, and objects stored in v1
	// before v1's validating webhook existed were never checked: a conversion that failed
	// on one would make it unreadable in v2, and every list of ImoocPods with it.
	template, errs := ParseTemplateAnnotation(saved)
	if len(errs) > 0 {
		return
	}
	delete(dst.Annotations, TemplateAnnotation)
	// A v1 client may have changed spec.image since the annotation was written: its
	// image wins over the saved one.
	if len(template.Spec.Containers) > 0 {
		template.Spec.Containers[0].Image = image
	}
	dst.Spec.Template = template
	//lesson:end
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
