package testenv

import (
	"errors"

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

// ErrorText returns err's message, or "" for nil: a failure then prints one line, not
// the error's struct, and two errors compare by what they say.
func ErrorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
