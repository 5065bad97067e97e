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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	copiesv1 "github.com/kube-workshop/operator-workshop/solutions/15-capstone/api/v1"
)

// TestConfigMapCopyWebhookRules calls the webhooks' methods as the API server's admission
// would, without one: the two rules the schema cannot state are plain Go, and a plain
// test of them runs in a second where the ginkgo suite starts a control plane.
func TestConfigMapCopyWebhookRules(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	valid := func() *copiesv1.ConfigMapCopy {
		return &copiesv1.ConfigMapCopy{Spec: copiesv1.ConfigMapCopySpec{
			Source:            copiesv1.SourceRef{Namespace: "config", Name: "settings"},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
		}}
	}
	defaulter, validator := &ConfigMapCopyDefaulter{}, &ConfigMapCopyValidator{}

	obj := valid()
	g.Expect(defaulter.Default(ctx, obj)).To(Succeed())
	g.Expect(obj.Spec.TargetName).To(Equal("settings"), "R2: the copies' name defaults to the source's")
	obj.Spec.TargetName = "mine"
	g.Expect(defaulter.Default(ctx, obj)).To(Succeed())
	g.Expect(obj.Spec.TargetName).To(Equal("mine"), "R2: a name the user gave is kept")

	_, err := validator.ValidateCreate(ctx, valid())
	g.Expect(err).NotTo(HaveOccurred(), "R3: a selector that parses is admitted")
	noValues := valid()
	noValues.Spec.NamespaceSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "team", Operator: metav1.LabelSelectorOpIn},
	}}
	_, err = validator.ValidateCreate(ctx, noValues)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "R3: an In without values is refused as invalid; got %v", err)
	g.Expect(err).To(MatchError(ContainSubstring("spec.namespaceSelector")), "R3: the refusal names the field")
	space := valid()
	space.Spec.NamespaceSelector.MatchLabels["team"] = "a b"
	_, err = validator.ValidateUpdate(ctx, valid(), space)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "R3: an update to a label value with a space is refused; got %v", err)
}
