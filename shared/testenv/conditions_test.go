package testenv

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConditionOfFindsTheConditionOrGivesAnEmptyOne(t *testing.T) {
	g := NewWithT(t)
	conditions := []metav1.Condition{
		{Type: "Progressing", Status: metav1.ConditionTrue, Reason: "Rolling"},
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ReconcileError", Message: "quota"},
	}

	g.Expect(ConditionOf(conditions, "Ready")).To(HaveStatusAndReason(metav1.ConditionFalse, "ReconcileError"))
	g.Expect(ConditionOf(conditions, "Ready")).NotTo(HaveStatusAndReason(metav1.ConditionFalse, "Rolling"))
	g.Expect(ConditionOf(conditions, "Available")).To(Equal(metav1.Condition{}), "a condition that is not there")
}
