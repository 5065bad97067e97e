package v1

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/sidecars"
)

var logsMount = corev1.VolumeMount{Name: "logs", MountPath: "/var/log/app", ReadOnly: true}

// Through the API server: a pod the SidecarSet selects is stored with its sidecar, its
// volume and the record, and the pod's own container stays unchanged. The sidecar is a
// native sidecar, an init container that restarts Always: in a pod that restarts Never,
// as a Job's does, the pod completes when its own container exits.
func TestASelectedPodIsStoredWithTheSidecar(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("selected")
	set := createSidecarSet(t, g, newSidecarSet(value, value, []corev1.Container{sidecar("log-shipper", logsMount)}, emptyDir("logs")))

	job := newPod(ns, "web", value)
	job.Spec.RestartPolicy = corev1.RestartPolicyNever
	pod, warnings := createPod(g, job)
	g.Expect(containerNames(pod)).To(Equal([]string{"app"}), "the pod's own containers stay as they were")
	g.Expect(pod.Spec.Containers[0].Image).To(Equal(appImage))
	g.Expect(sidecarNames(pod)).To(Equal([]string{"log-shipper"}),
		"the sidecar should be a native sidecar: an init container whose restartPolicy is Always")
	g.Expect(pod.Spec.InitContainers[0].Image).To(Equal(sidecarImage))
	g.Expect(pod.Spec.InitContainers[0].VolumeMounts).To(ContainElement(logsMount))
	g.Expect(volumeNames(pod)).To(ContainElement("logs"))
	g.Expect(sidecars.Injected(pod.Annotations)).To(Equal(map[string]sidecars.Entry{
		set.Name: {Revision: sidecars.Revision(&set.Spec), Containers: []string{"log-shipper"}}}),
		"the pod should record the SidecarSet, its revision and its sidecar in %s", sidecars.InjectedAnnotation)
	g.Expect(warnings).To(BeEmpty())
	// The API server defaulted the sidecar like any container after the webhook's patch.
	g.Expect(pod.Spec.InitContainers[0].TerminationMessagePolicy).To(Equal(corev1.TerminationMessageReadFile))
}

func TestPodsTheSidecarSetDoesNotSelectAreUntouched(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("unselected")
	createSidecarSet(t, g, newSidecarSet(value, value, []corev1.Container{sidecar("log-shipper")}))
	pod, warnings := createPod(g, newPod(ns, "other", "someone-else"))
	g.Expect(containerNames(pod)).To(Equal([]string{"app"}))
	g.Expect(sidecarNames(pod)).To(BeEmpty())
	g.Expect(pod.Annotations).NotTo(HaveKey(sidecars.InjectedAnnotation))
	g.Expect(warnings).To(BeEmpty())
}

func TestTheNamespaceSelectorLimitsTheNamespaces(t *testing.T) {
	g := NewWithT(t)
	web, db := env.WebhookNamespace(t), env.WebhookNamespace(t)
	for ns, team := range map[string]string{web: "web", db: "db"} {
		var namespace corev1.Namespace
		g.Expect(env.Client().Get(env.Context(), client.ObjectKey{Name: ns}, &namespace)).To(Succeed())
		namespace.Labels["team"] = team
		g.Expect(env.Client().Update(env.Context(), &namespace)).To(Succeed())
	}
	value := newCase("namespaces")
	set := newSidecarSet(value, value, []corev1.Container{sidecar("metrics-agent")})
	set.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"team": "web"}}
	createSidecarSet(t, g, set)
	// The webhook reads namespaces from the manager's cache too.
	g.Eventually(func(g Gomega) {
		var cached corev1.Namespace
		g.Expect(env.Manager().GetCache().Get(env.Context(), client.ObjectKey{Name: db}, &cached)).To(Succeed())
		g.Expect(cached.Labels).To(HaveKeyWithValue("team", "db"))
	}).Should(Succeed())

	inWeb, _ := createPod(g, newPod(web, "pod", value))
	inDB, _ := createPod(g, newPod(db, "pod", value))
	g.Expect(sidecarNames(inWeb)).To(Equal([]string{"metrics-agent"}), "a pod in a namespace labelled team=web")
	g.Expect(sidecarNames(inDB)).To(BeEmpty(), "a pod in a namespace labelled team=db")
}

// kube-system's pods, and the manager's own, never go through the webhook: its
// configuration's namespaceSelector leaves them out.
func TestPodsInExcludedNamespacesAreUntouched(t *testing.T) {
	g := NewWithT(t)
	env.WebhookNamespace(t)
	value := newCase("excluded")
	createSidecarSet(t, g, newSidecarSet(value, value, []corev1.Container{sidecar("log-shipper")}))
	for _, ns := range sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace) {
		err := env.Client().Create(env.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		g.Expect(client.IgnoreAlreadyExists(err)).To(Succeed())
		pod, warnings := createPod(g, newPod(ns, value, value))
		t.Cleanup(func() { _ = env.Client().Delete(env.Context(), pod) })
		g.Expect(sidecarNames(pod)).To(BeEmpty(), "a pod in %s should get no sidecar", ns)
		g.Expect(warnings).To(BeEmpty())
	}
}

func TestTwoSidecarSetsOnOnePod(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("two")
	logging := createSidecarSet(t, g, newSidecarSet(value+"-a-logging", value, []corev1.Container{sidecar("log-shipper", logsMount)}, emptyDir("logs")))
	metrics := createSidecarSet(t, g, newSidecarSet(value+"-b-metrics", value, []corev1.Container{sidecar("metrics-agent")}))

	pod, warnings := createPod(g, newPod(ns, "web", value))
	g.Expect(sidecarNames(pod)).To(Equal([]string{"log-shipper", "metrics-agent"}),
		"both SidecarSets' sidecars, in the order of their names")
	g.Expect(sidecars.Injected(pod.Annotations)).To(Equal(map[string]sidecars.Entry{
		logging.Name: {Revision: sidecars.Revision(&logging.Spec), Containers: []string{"log-shipper"}},
		metrics.Name: {Revision: sidecars.Revision(&metrics.Spec), Containers: []string{"metrics-agent"}},
	}))
	g.Expect(warnings).To(BeEmpty())
}

// A sidecar whose name the pod has already is left out, and the pod is created all the
// same, with a warning that says why.
func TestANameClashSkipsTheSidecarWithAWarning(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("clash")
	createSidecarSet(t, g, newSidecarSet(value, value, []corev1.Container{sidecar("log-shipper", logsMount), sidecar("metrics-agent")}, emptyDir("logs")))

	pod := newPod(ns, "clash", value)
	pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "metrics-agent", Image: appImage})
	pod.Spec.Volumes = []corev1.Volume{emptyDir("logs")}
	stored, warnings := createPod(g, pod)
	g.Expect(containerNames(stored)).To(Equal([]string{"app", "metrics-agent"}))
	g.Expect(sidecarNames(stored)).To(BeEmpty(), "neither sidecar fits")
	g.Expect(stored.Spec.Containers[1].Image).To(Equal(appImage), "the pod's own metrics-agent stays")
	g.Expect(volumeNames(stored)).To(Equal([]string{"logs"}))
	// The words after the names are the writer's.
	g.Expect(warnings).To(ConsistOf(
		HavePrefix(`SidecarSet %s: volume "logs" is not added`, value),
		And(HavePrefix(`SidecarSet %s: `, value), ContainSubstring("log-shipper")),
		And(HavePrefix(`SidecarSet %s: `, value), ContainSubstring("metrics-agent")),
	), "kubectl prints these as Warning: lines")
}

// A pod admitted again with its record (here a copy of a stored pod, as
// `kubectl get pod -o yaml | kubectl create -f -` makes) gets nothing twice.
func TestAPodAdmittedAgainIsNotInjectedTwice(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("again")
	createSidecarSet(t, g, newSidecarSet(value, value, []corev1.Container{sidecar("log-shipper", logsMount)}, emptyDir("logs")))
	first, _ := createPod(g, newPod(ns, "first", value))

	copied := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "copy", Labels: first.Labels, Annotations: first.Annotations},
		Spec:       *first.Spec.DeepCopy(),
	}
	second, warnings := createPod(g, copied)
	g.Expect(sidecarNames(second)).To(Equal([]string{"log-shipper"}))
	g.Expect(volumeNames(second)).To(Equal([]string{"logs"}))
	g.Expect(second.Annotations[sidecars.InjectedAnnotation]).To(Equal(first.Annotations[sidecars.InjectedAnnotation]))
	g.Expect(warnings).To(BeEmpty(), "the record says the pod has the sidecar: nothing to warn about")
}

// A pod created with a record it did not earn, to opt out of a sidecar, gets the
// sidecar all the same: the record is anyone's to write, the containers are not.
func TestAForgedRecordDoesNotOptAPodOut(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("forged")
	set := createSidecarSet(t, g, newSidecarSet(value, value, []corev1.Container{sidecar("log-shipper", logsMount)}, emptyDir("logs")))

	pod := newPod(ns, "forged", value)
	pod.Annotations = map[string]string{sidecars.InjectedAnnotation: fmt.Sprintf(`{%q:"anything"}`, set.Name)}
	stored, warnings := createPod(g, pod)
	g.Expect(sidecarNames(stored)).To(Equal([]string{"log-shipper"}), "a record without the sidecar should not keep the sidecar out")
	g.Expect(sidecars.Injected(stored.Annotations)).To(Equal(map[string]sidecars.Entry{
		set.Name: {Revision: sidecars.Revision(&set.Spec), Containers: []string{"log-shipper"}}}),
		"the record should say what the pod got")
	g.Expect(warnings).To(BeEmpty())
}

// Changing a SidecarSet changes no pod that exists; the pods created after it get the new
// revision.
func TestAChangedSidecarSetLeavesExistingPodsAlone(t *testing.T) {
	g := NewWithT(t)
	ns := env.WebhookNamespace(t)
	value := newCase("changed")
	set := createSidecarSet(t, g, newSidecarSet(value, value, []corev1.Container{sidecar("log-shipper")}))
	before, _ := createPod(g, newPod(ns, "before", value))

	set.Spec.Containers[0].Image = "busybox:1.38"
	g.Expect(env.Client().Update(env.Context(), set)).To(Succeed())
	env.WaitForCache(g, set)
	after, _ := createPod(g, newPod(ns, "after", value))

	var again corev1.Pod
	g.Expect(env.Client().Get(env.Context(), client.ObjectKeyFromObject(before), &again)).To(Succeed())
	g.Expect(again.Spec.InitContainers[0].Image).To(Equal(sidecarImage), "the pod created before keeps its sidecar")
	g.Expect(after.Spec.InitContainers[0].Image).To(Equal("busybox:1.38"))
	g.Expect(sidecars.Injected(after.Annotations)[set.Name].Revision).NotTo(Equal(sidecars.Injected(again.Annotations)[set.Name].Revision),
		"the two pods should record different revisions")
}

// The pod webhook's configuration: every choice of its marker, as the API server gets it.
func TestTheWebhookConfigurationLeavesTheExcludedNamespacesOut(t *testing.T) {
	g := NewWithT(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "config", "webhook", "manifests.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	var found bool
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var config struct {
			Kind     string `json:"kind"`
			Webhooks []struct {
				Name               string                `json:"name"`
				FailurePolicy      string                `json:"failurePolicy"`
				TimeoutSeconds     int                   `json:"timeoutSeconds"`
				ReinvocationPolicy string                `json:"reinvocationPolicy"`
				NamespaceSelector  *metav1.LabelSelector `json:"namespaceSelector"`
				Rules              []struct {
					Operations []string `json:"operations"`
					Resources  []string `json:"resources"`
				} `json:"rules"`
			} `json:"webhooks"`
		}
		g.Expect(yaml.Unmarshal([]byte(doc), &config)).To(Succeed())
		for _, hook := range config.Webhooks {
			if len(hook.Rules) == 0 || hook.Rules[0].Resources[0] != "pods" {
				continue
			}
			found = true
			g.Expect(hook.Rules[0].Operations).To(Equal([]string{"CREATE"}), "the pod webhook sees creations only")
			g.Expect(hook.FailurePolicy).To(Equal("Ignore"), "a manager that is down must not stop pod creation")
			g.Expect(hook.TimeoutSeconds).To(Equal(5), "a pod creation waits for the manager 5 seconds at most")
			g.Expect(hook.ReinvocationPolicy).To(Equal("IfNeeded"), "a pod another webhook changed after this one "+
				"(its labels, its containers) is shown to it again: Inject, which skips what the record and the containers "+
				"say the pod has, adds only what the change calls for")
			g.Expect(hook.NamespaceSelector).To(Equal(&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn,
				Values: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace),
			}}}), "the marker's namespaceSelector should leave out sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace) "+
				"(a patch=`{...}` in the marker)")
		}
	}
	g.Expect(found).To(BeTrue(), "config/webhook/manifests.yaml should hold a webhook on pods")
}
