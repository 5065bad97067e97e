package admission

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// The CRD's own rules refuse a toleration no taint could match, as lesson 04's
// validating webhook does, with no webhook installed.
func TestTheSchemaRefusesTolerationsNoTaintCanMatch(t *testing.T) {
	ns := newNamespace(t, nil)
	tests := []struct {
		name       string
		toleration corev1.Toleration
		// refusal is a piece of the CRD rule's message; "" when the toleration is valid.
		refusal string
	}{
		{"a label key and value", corev1.Toleration{Key: "example.com/dedicated", Operator: corev1.TolerationOpEqual, Value: strings.Repeat("v", 63)}, ""},
		{"a key of 317 characters", corev1.Toleration{Key: strings.Repeat("k", 253) + "/" + strings.Repeat("n", 63), Operator: corev1.TolerationOpExists}, ""},
		{"a key of 318 characters", corev1.Toleration{Key: strings.Repeat("k", 254) + "/" + strings.Repeat("n", 63), Operator: corev1.TolerationOpExists}, "a toleration's key must be a label key"},
		{"a value of 64 characters", corev1.Toleration{Key: "disk", Operator: corev1.TolerationOpEqual, Value: strings.Repeat("v", 64)}, "a toleration's value must be a label value"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			mds := newMyDaemonSet(ns, "agent-"+string(rune('a'+i)), pauseImage)
			mds.Spec.Tolerations = []corev1.Toleration{tt.toleration}
			err := env.Client().Create(env.Context(), mds)
			if tt.refusal == "" {
				g.Expect(err).NotTo(HaveOccurred(), "a toleration with %s should be admitted", tt.name)
				return
			}
			g.Expect(testenv.Causes(err)).To(ContainElement(testenv.HaveCause("spec.tolerations", tt.refusal)),
				"the CRD should refuse a toleration with %s by a CEL rule on spec.tolerations (+kubebuilder:validation:XValidation); got: %s", tt.name, describe(err))
		})
	}
}

// A MyDaemonSet stored before the rule existed, with a toleration the rule refuses, still
// takes an update of another field: the API server ratchets a rule whose field the
// update leaves alone. A change of that field must meet the rule.
func TestAMyDaemonSetStoredBeforeTheRuleTakesUpdatesOfOtherFields(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, nil)
	// What an older CRD, without the rule, let through: written straight into etcd.
	env.StoreInEtcd(t, testenv.EtcdKey(appsv1.GroupVersion.Group, "mydaemonsets", ns, "old"), map[string]any{
		"apiVersion": appsv1.GroupVersion.String(),
		"kind":       "MyDaemonSet",
		"metadata": map[string]any{
			"name": "old", "namespace": ns, "uid": string(types.UID("4d9e3c1a-0000-4000-8000-000000000016")),
			"creationTimestamp": metav1.NewTime(time.Now()).UTC().Format(time.RFC3339),
		},
		"spec": map[string]any{
			"image":           pauseImage,
			"imagePullPolicy": "IfNotPresent",
			"tolerations":     []any{map[string]any{"key": "disk", "operator": "Equal", "value": strings.Repeat("v", 64)}},
		},
	})
	var old appsv1.MyDaemonSet
	g.Expect(env.Client().Get(env.Context(), client.ObjectKey{Namespace: ns, Name: "old"}, &old)).To(Succeed())

	old.Spec.Image = "registry.k8s.io/pause:3.9"
	err := env.Client().Update(env.Context(), &old)
	g.Expect(err).NotTo(HaveOccurred(),
		"an object stored before the rule must still take an update of another field (spec.image): put the rule on the field it checks, spec.tolerations, where the API server ratchets it; got: %s", describe(err))

	old.Spec.Tolerations = []corev1.Toleration{{Key: "disk", Operator: corev1.TolerationOpEqual, Value: strings.Repeat("w", 64)}}
	err = env.Client().Update(env.Context(), &old)
	g.Expect(testenv.Causes(err)).To(ContainElement(testenv.HaveCause("spec.tolerations", "a toleration's value must be a label value")),
		"a change of the tolerations themselves must meet the rule, old object or not; got: %s", describe(err))
}

// Once stored, spec.imagePullPolicy may change but not go: a transition rule compares
// the update with the object it replaces (oldSelf).
func TestAnImagePullPolicyOnceSetStaysSet(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, nil)
	mds := newMyDaemonSet(ns, "agent", pauseImage)
	mds.Spec.ImagePullPolicy = corev1.PullIfNotPresent
	g.Expect(env.Client().Create(env.Context(), mds)).To(Succeed())

	remove := client.RawPatch(types.JSONPatchType, []byte(`[{"op":"remove","path":"/spec/imagePullPolicy"}]`))
	err := env.Client().Patch(env.Context(), mds.DeepCopy(), remove)
	g.Expect(testenv.Causes(err)).To(ContainElement(testenv.HaveCause("spec.imagePullPolicy", "cannot be removed once set")),
		"a patch that removes spec.imagePullPolicy should be refused by a transition rule (oldSelf) on spec, naming spec.imagePullPolicy; got: %s", describe(err))

	change := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"imagePullPolicy":"Always"}}`))
	g.Expect(env.Client().Patch(env.Context(), mds.DeepCopy(), change)).To(Succeed(), "another policy may replace it")
	g.Expect(stored(g, mds, &appsv1.MyDaemonSet{}).Spec.ImagePullPolicy).To(Equal(corev1.PullAlways))
}
