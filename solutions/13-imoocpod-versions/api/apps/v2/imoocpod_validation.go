package v2

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateTemplate returns, each under path, what v2's schema refuses in a template: no
// container, a container without an image, two containers of one name (the markers on
// PodTemplateSpec.Containers). The API server checks a v2 write itself. A v1 write
// brings its template in the apps.workshop.dev/v2-template annotation, a string no schema
// reads: v1's validating webhook refuses with this what v2 would, and the conversion
// to v2 uses no template that fails it. Keep it in step with the markers:
// TestAV1WriteIsRefusedWhatV2Refuses writes each case in both versions.
func ValidateTemplate(template *PodTemplate, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	containers := path.Child("spec", "containers")
	if len(template.Spec.Containers) == 0 {
		errs = append(errs, field.Required(containers, "at least one container"))
	}
	names := make(map[string]bool, len(template.Spec.Containers))
	for i, c := range template.Spec.Containers {
		if c.Image == "" {
			errs = append(errs, field.Required(containers.Index(i).Child("image"), "every container needs an image"))
		}
		if names[c.Name] {
			errs = append(errs, field.Duplicate(containers.Index(i).Child("name"), c.Name))
		}
		names[c.Name] = true
	}
	return errs
}
