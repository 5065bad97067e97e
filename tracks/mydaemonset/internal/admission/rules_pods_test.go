package admission

import (
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/tracks/mydaemonset/internal/controller"
)

var reservedLabelOnce sync.Once

// withReservedLabelPolicy applies config/policies' reserved-label policy, its binding
// and its parameters, once for the package, and waits until the API server enforces
// them: it loads a new policy in the background, within a second or so.
func withReservedLabelPolicy(t *testing.T) {
	t.Helper()
	reservedLabelOnce.Do(func() {
		applyManifests(t, "reserved_label_params.yaml", "reserved_label.yaml")
	})
	ns := newNamespace(t, map[string]string{enforcedLabel: "enforced"})
	probe := labelledPod(ns, "probe", map[string]string{controller.MyDaemonSetLabel: "probe"})
	NewWithT(t).Eventually(func(g Gomega) {
		err := env.Client().Create(env.Context(), probe.DeepCopy(), client.DryRunAll)
		g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "got: %s", describe(err))
	}).WithTimeout(policyLoadTimeout).Should(Succeed(), "the reserved-label policy of config/policies/reserved_label.yaml never refused a labelled pod: "+
		"does its binding deny (validationActions), in the namespaces labelled %s=enforced (matchResources)?", enforcedLabel)
}

// In a namespace that opted in, only the manager's service account may put the
// MyDaemonSet label on a pod, change it or take it off; any other label is anyone's.
func TestOnlyTheManagerMayPutItsLabelOnPods(t *testing.T) {
	withReservedLabelPolicy(t)
	g := NewWithT(t)
	ns := newNamespace(t, map[string]string{enforcedLabel: "enforced"})
	user := clientAs(t, "jane")
	manager := clientAs(t, managerUser, "system:serviceaccounts", "system:serviceaccounts:mydaemonset-system")
	ctx := env.Context()

	err := user.Create(ctx, labelledPod(ns, "forged", map[string]string{controller.MyDaemonSetLabel: "agent"}))
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(),
		"a user's pod labelled %s must be denied (Forbidden) by the policy, not admitted or warned about (validationActions: [Deny]); got: %s", controller.MyDaemonSetLabel, describe(err))
	g.Expect(err).To(MatchError(ContainSubstring("metadata.labels["+controller.MyDaemonSetLabel+"]")), "the denial names the label")

	plain := labelledPod(ns, "plain", map[string]string{"app": "web"})
	g.Expect(user.Create(ctx, plain)).To(Succeed(), "a pod without the label is anyone's to create")

	own := labelledPod(ns, "agent-node-1", map[string]string{controller.MyDaemonSetLabel: "agent"})
	err = manager.Create(ctx, own)
	g.Expect(err).NotTo(HaveOccurred(), "the manager's service account (the ConfigMap's manager) may label its pods; got: %s", describe(err))

	// Updates: another label is anyone's, the reserved one the manager's.
	g.Expect(user.Get(ctx, client.ObjectKeyFromObject(own), own)).To(Succeed())
	own.Labels["team"] = "infra"
	g.Expect(user.Update(ctx, own)).To(Succeed(), "a user may still add another label to the manager's pod")
	own.Labels[controller.MyDaemonSetLabel] = "other"
	err = user.Update(ctx, own)
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a user must not change the label's value; got: %s", describe(err))
	g.Expect(user.Get(ctx, client.ObjectKeyFromObject(own), own)).To(Succeed())
	delete(own.Labels, controller.MyDaemonSetLabel)
	err = user.Update(ctx, own)
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a user must not take the label off (the pod would leave its MyDaemonSet); got: %s", describe(err))
	g.Expect(user.Get(ctx, client.ObjectKeyFromObject(plain), plain)).To(Succeed())
	plain.Labels[controller.MyDaemonSetLabel] = "agent"
	err = user.Update(ctx, plain)
	g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a user must not add the label to a pod either; got: %s", describe(err))
}

// A namespace that did not opt in is left alone: the binding selects only the
// namespaces labelled apps.workshop.dev/reserved-labels=enforced, so that the policy
// never stands in the way of kube-system, or of a namespace where another tool uses
// the label.
func TestPodsOutsideTheEnforcedNamespacesAreLeftAlone(t *testing.T) {
	withReservedLabelPolicy(t)
	g := NewWithT(t)
	ns := newNamespace(t, nil)
	user := clientAs(t, "jane")
	err := user.Create(env.Context(), labelledPod(ns, "labelled", map[string]string{controller.MyDaemonSetLabel: "agent"}))
	g.Expect(err).NotTo(HaveOccurred(),
		"a namespace without %s=enforced must be left alone: the binding should select the namespaces that opted in (matchResources.namespaceSelector), not every one; got: %s", enforcedLabel, describe(err))
}
