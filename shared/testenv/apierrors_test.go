package testenv

import (
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestCausesAreTheFieldsOfAnInvalidError(t *testing.T) {
	g := NewWithT(t)
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps.workshop.dev", Kind: "MyDaemonSet"}, "bad", field.ErrorList{
		field.Required(field.NewPath("spec", "image"), ""),
		field.Invalid(field.NewPath("spec", "nodeSelector").Key("disk type"), "disk type", "no label key"),
	})

	g.Expect(Causes(invalid)).To(ConsistOf(
		HaveField("Field", "spec.image"),
		HaveField("Field", "spec.nodeSelector[disk type]"),
	))
	g.Expect(Causes(fmt.Errorf("creating: %w", invalid))).To(HaveLen(2), "a wrapped API error keeps its causes")
	g.Expect(Causes(apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "gone"))).
		To(BeEmpty(), "an API error without field causes")
	g.Expect(Causes(&apierrors.StatusError{ErrStatus: metav1.Status{Message: "no details"}})).
		To(BeNil(), "an API error without details")
	g.Expect(Causes(errors.New("connection refused"))).To(BeNil(), "an error that is no API error")
	g.Expect(Causes(nil)).To(BeNil())
}

// invalidNodePool is an Invalid error with two causes, as a validator returns it.
var invalidNodePool = apierrors.NewInvalid(schema.GroupKind{Group: "nodes.workshop.dev", Kind: "NodePool"}, "bad", field.ErrorList{
	field.Invalid(field.NewPath("spec", "labels").Key("zone"), "not valid!", "a valid label"),
	field.Required(field.NewPath("spec", "taints").Index(0).Child("key"), ""),
})

func TestCauseFieldsListTheFieldsInOrder(t *testing.T) {
	g := NewWithT(t)
	g.Expect(CauseFields(invalidNodePool)).To(Equal([]string{"spec.labels[zone]", "spec.taints[0].key"}))
	g.Expect(CauseFields(errors.New("connection refused"))).To(BeNil())
}

func TestHaveCauseMatchesTheFieldAndTheMessageOfOneCause(t *testing.T) {
	g := NewWithT(t)
	g.Expect(Causes(invalidNodePool)).To(ContainElement(HaveCause("spec.labels[zone]", `"not valid!"`)))
	g.Expect(Causes(invalidNodePool)).NotTo(ContainElement(HaveCause("spec.labels[zone]", "Required value")),
		"the message must be the message of the field's cause")
}

func TestAFieldIsUnderItselfItsSubfieldsAndItsEntries(t *testing.T) {
	fields := []string{"metadata.name", "spec"}
	for field, under := range map[string]bool{
		"spec": true, "spec.image": true, "spec.labels[zone]": true, "metadata.name": true,
		"specs": false, "metadata.namespace": false, "status.phase": false, "": false,
	} {
		if got := isUnderOneOf(field, fields); got != under {
			t.Errorf("isUnderOneOf(%q, %q) = %v, want %v", field, fields, got, under)
		}
	}
}
