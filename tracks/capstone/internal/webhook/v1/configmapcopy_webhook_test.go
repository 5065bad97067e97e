/*
Copyright 2026.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	copiesv1 "github.com/kube-workshop/operator-workshop/tracks/capstone/api/v1"
)

var _ = Describe("ConfigMapCopy Webhook", func() {
	var (
		obj       *copiesv1.ConfigMapCopy
		validator ConfigMapCopyValidator
		defaulter ConfigMapCopyDefaulter
	)

	BeforeEach(func() {
		obj = &copiesv1.ConfigMapCopy{Spec: copiesv1.ConfigMapCopySpec{
			Source:            copiesv1.SourceRef{Namespace: "config", Name: "settings"},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
		}}
	})

	Context("When creating ConfigMapCopy under Defaulting Webhook", func() {
		It("Should name the copies after the source when no name is given", func() {
			Expect(defaulter.Default(ctx, obj)).To(Succeed())
			Expect(obj.Spec.TargetName).To(Equal("settings"))
		})
		It("Should keep the name the user gave", func() {
			obj.Spec.TargetName = "mine"
			Expect(defaulter.Default(ctx, obj)).To(Succeed())
			Expect(obj.Spec.TargetName).To(Equal("mine"))
		})
	})

	Context("When creating or updating ConfigMapCopy under Validating Webhook", func() {
		It("Should admit a selector that parses", func() {
			_, err := validator.ValidateCreate(ctx, obj)
			Expect(err).NotTo(HaveOccurred())
		})
		It("Should refuse an expression In without values, naming the field", func() {
			obj.Spec.NamespaceSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "team", Operator: metav1.LabelSelectorOpIn},
			}}
			_, err := validator.ValidateCreate(ctx, obj)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
			Expect(err.Error()).To(ContainSubstring("spec.namespaceSelector"))
		})
		It("Should refuse an update to a label value with a space", func() {
			newObj := obj.DeepCopy()
			newObj.Spec.NamespaceSelector.MatchLabels["team"] = "a b"
			_, err := validator.ValidateUpdate(ctx, obj, newObj)
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
		})
	})
})
