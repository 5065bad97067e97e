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

package controller

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	copiesv1 "github.com/kube-workshop/operator-workshop/solutions/15-capstone/api/v1"
)

// These tests call Reconcile directly, pass by pass, on the API server of envtest; the
// behaviour a user sees, with the manager running, is graded by make check-15.
var _ = Describe("ConfigMapCopy Controller", func() {
	ctx := context.Background()
	var r *ConfigMapCopyReconciler

	reconcileOnce := func(name string) {
		_, err := r.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Name: name}})
		ExpectWithOffset(1, err).NotTo(HaveOccurred())
	}
	namespace := func(name string, labels map[string]string) {
		ExpectWithOffset(1, k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})).To(Succeed())
	}

	BeforeEach(func() {
		r = &ConfigMapCopyReconciler{Client: k8sClient, Scheme: k8sClient.Scheme()}
	})

	It("copies the source into the selected namespaces, leaves someone else's ConfigMap and cleans up on deletion", func() {
		namespace("src", nil)
		namespace("team-a", map[string]string{"team": "yes"})
		namespace("team-b", map[string]string{"team": "yes"})
		namespace("elsewhere", nil)
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "src", Name: "settings"},
			Data: map[string]string{"a": "1"}})).To(Succeed())
		theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "settings"}, Data: map[string]string{"theirs": "x"}}
		Expect(k8sClient.Create(ctx, theirs)).To(Succeed())
		cc := &copiesv1.ConfigMapCopy{ObjectMeta: metav1.ObjectMeta{Name: "copy"}, Spec: copiesv1.ConfigMapCopySpec{
			Source:            copiesv1.SourceRef{Namespace: "src", Name: "settings"},
			NamespaceSelector: metav1.LabelSelector{MatchLabels: map[string]string{"team": "yes"}},
			TargetName:        "settings",
		}}
		Expect(k8sClient.Create(ctx, cc)).To(Succeed())

		By("adding the finalizer, then copying")
		reconcileOnce("copy")
		reconcileOnce("copy")
		var copied corev1.ConfigMap
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: "team-a", Name: "settings"}, &copied)).To(Succeed())
		Expect(copied.Data).To(Equal(map[string]string{"a": "1"}))
		Expect(metav1.GetControllerOf(&copied)).NotTo(BeNil())
		Expect(apierrors.IsNotFound(k8sClient.Get(ctx, types.NamespacedName{Namespace: "elsewhere", Name: "settings"}, &corev1.ConfigMap{}))).To(BeTrue())

		By("leaving someone else's ConfigMap as it was, and reporting it")
		var left corev1.ConfigMap
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: "team-b", Name: "settings"}, &left)).To(Succeed())
		Expect(left.Data).To(Equal(theirs.Data))
		Expect(left.OwnerReferences).To(BeEmpty())
		Expect(k8sClient.Get(ctx, types.NamespacedName{Name: "copy"}, cc)).To(Succeed())
		Expect(meta.IsStatusConditionTrue(cc.Status.Conditions, copiesv1.ConditionConflict)).To(BeTrue())
		Expect(meta.IsStatusConditionFalse(cc.Status.Conditions, copiesv1.ConditionReady)).To(BeTrue())
		Expect(cc.Status.ObservedGeneration).To(Equal(cc.Generation))

		By("removing every copy, and only copies, when the ConfigMapCopy is deleted")
		Expect(k8sClient.Delete(ctx, cc)).To(Succeed())
		reconcileOnce("copy")
		Expect(apierrors.IsNotFound(k8sClient.Get(ctx, types.NamespacedName{Namespace: "team-a", Name: "settings"}, &corev1.ConfigMap{}))).To(BeTrue())
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: "team-b", Name: "settings"}, &left)).To(Succeed())
		Expect(apierrors.IsNotFound(k8sClient.Get(ctx, types.NamespacedName{Name: "copy"}, cc))).To(BeTrue())
	})
})
