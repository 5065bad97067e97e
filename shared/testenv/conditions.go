package testenv

import (
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConditionOf returns the condition of type conditionType among conditions, or an empty
// one when there is none: a matcher then prints what it found instead of failing on nil.
func ConditionOf(conditions []metav1.Condition, conditionType string) metav1.Condition {
	if c := meta.FindStatusCondition(conditions, conditionType); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// HaveStatusAndReason matches a metav1.Condition with status and reason; its message is
// for people and is not compared.
func HaveStatusAndReason(status metav1.ConditionStatus, reason string) types.GomegaMatcher {
	return gomega.And(gomega.HaveField("Status", status), gomega.HaveField("Reason", reason))
}
