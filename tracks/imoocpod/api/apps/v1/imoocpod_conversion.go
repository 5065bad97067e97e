package v1

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
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

// ConvertTo converts this v1 ImoocPod to the hub, v2.
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
	return restoreTemplate(dst, src.Spec.Image)
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
// image, the v1 spec.image, in its first container, and removes the annotation.
func restoreTemplate(dst *appsv2.ImoocPod, image string) error {
	//lesson:13.3 restore
	//lesson:stub return nil
	saved, ok := dst.Annotations[TemplateAnnotation]
	if !ok {
		return nil
	}
	delete(dst.Annotations, TemplateAnnotation)
	var template appsv2.PodTemplate
	if err := json.Unmarshal([]byte(saved), &template); err != nil {
		return fmt.Errorf("converting ImoocPod %s/%s to v2: annotation %s: %w", dst.Namespace, dst.Name, TemplateAnnotation, err)
	}
	// A v1 client may have changed spec.image since the annotation was written: its
	// image wins over the saved one.
	if len(template.Spec.Containers) > 0 {
		template.Spec.Containers[0].Image = image
	}
	dst.Spec.Template = template
	return nil
	//lesson:end
}

// templateOf returns the v2 template that a v1 spec.image says: one container, named
// ContainerName, running image.
func templateOf(image string) appsv2.PodTemplate {
	return appsv2.PodTemplate{Spec: appsv2.PodTemplateSpec{
		Containers: []corev1.Container{{Name: ContainerName, Image: image}},
	}}
}
