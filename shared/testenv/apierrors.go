package testenv

import (
	"errors"
	"strings"
	"testing"

	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Causes returns the causes of an API error, wrapped or not: for an Invalid error, one
// per problem, each with the path of its field. It returns nil for any other error.
func Causes(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		return status.Status().Details.Causes
	}
	return nil
}

// CauseFields returns the field of each of err's causes (Causes), in order.
func CauseFields(err error) []string {
	var fields []string
	for _, cause := range Causes(err) {
		fields = append(fields, cause.Field)
	}
	return fields
}

// HaveCause matches a cause (metav1.StatusCause) on field whose message contains
// message: what a user reads of one problem, where and what is wrong.
func HaveCause(field, message string) types.GomegaMatcher {
	return gomega.And(gomega.HaveField("Field", field), gomega.HaveField("Message", gomega.ContainSubstring(message)))
}

// ExpectInvalid expects err to be the API server's refusal of a write as Invalid (422),
// with a cause on field whose message contains message (HaveCause). Whichever refuses,
// the CRD's schema or a validating webhook, the user should get the field at fault.
func ExpectInvalid(g gomega.Gomega, err error, field, message string) {
	g.ExpectWithOffset(1, err).To(gomega.HaveOccurred(), "the API server should refuse the write")
	g.ExpectWithOffset(1, apierrors.IsInvalid(err)).To(gomega.BeTrue(), "the refusal should be Invalid (422), got: %v", err)
	g.ExpectWithOffset(1, Causes(err)).To(gomega.ContainElement(HaveCause(field, message)),
		"the refusal should name the field and say what is wrong with it; got: %v", err)
}

// ExpectRefusedBy expects the API server's refusal err to come from the validating
// webhook named webhook or, when webhook is "", from the CRD's schema: the API server
// checks the schema before it calls any validating webhook, which a test of the schema's
// rules makes sure of.
func ExpectRefusedBy(g gomega.Gomega, err error, webhook string) {
	if webhook == "" {
		g.ExpectWithOffset(1, ErrorText(err)).NotTo(gomega.ContainSubstring("admission webhook"),
			"the CRD's schema should refuse this before any validating webhook")
		return
	}
	g.ExpectWithOffset(1, ErrorText(err)).To(gomega.ContainSubstring(`admission webhook %q denied the request`, webhook),
		"the CRD's schema allows this; the validating webhook should refuse it")
}

// CheckInvalid fails t unless err, a validator's refusal of spec, is an Invalid error
// (apierrors.NewInvalid) with causes, each on one of fields or a field under it ("spec"
// takes "spec.image" and "spec.labels[x]"). The API server hands the user each cause's
// field: a refusal without one, or with one the user did not write, leaves them
// guessing. It is for fuzz targets, which check what holds for every input.
func CheckInvalid(t testing.TB, err error, spec any, fields ...string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("the refusal of %+v should be an Invalid error (apierrors.NewInvalid), got %T: %v", spec, err, err)
	}
	if len(Causes(err)) == 0 {
		t.Fatalf("the refusal of %+v names no field: %v", spec, err)
	}
	for _, cause := range Causes(err) {
		if !isUnderOneOf(cause.Field, fields) {
			t.Fatalf("the refusal of %+v has a cause outside %s: %+v", spec, strings.Join(fields, " and "), cause)
		}
	}
}

// isUnderOneOf reports whether field is one of fields or a field under it: a subfield
// (".") or an entry ("[").
func isUnderOneOf(field string, fields []string) bool {
	for _, f := range fields {
		if rest, ok := strings.CutPrefix(field, f); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return true
		}
	}
	return false
}

// ErrorText returns err's message, or "" for nil: a failure then prints one line, not
// the error's struct, and two errors compare by what they say.
func ErrorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
