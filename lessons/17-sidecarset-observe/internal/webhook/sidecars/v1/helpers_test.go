package v1

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

const (
	appImage     = "registry.k8s.io/pause:3.10"
	sidecarImage = "busybox:1.37"
	// caseLabel selects the pods of one test: SidecarSets are cluster-scoped, so each
	// test's SidecarSets select by a value of its own, and leave other tests' pods alone.
	caseLabel = "test.workshop.dev/case"
)

var caseCounter atomic.Int64

// newCase returns a value of caseLabel no other test uses.
func newCase(name string) string {
	return fmt.Sprintf("%s-%d", name, caseCounter.Add(1))
}

// sidecar returns a container a SidecarSet can add.
func sidecar(name string, mounts ...corev1.VolumeMount) corev1.Container {
	return corev1.Container{Name: name, Image: sidecarImage, VolumeMounts: mounts}
}

func mount(name, path string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: path}
}

func emptyDir(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
}

// newSidecarSet returns a SidecarSet that selects the pods labelled caseLabel=value.
func newSidecarSet(name, value string, containers []corev1.Container, volumes ...corev1.Volume) *sidecarsv1.SidecarSet {
	return &sidecarsv1.SidecarSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: sidecarsv1.SidecarSetSpec{
			Selector:   &metav1.LabelSelector{MatchLabels: map[string]string{caseLabel: value}},
			Containers: containers,
			Volumes:    volumes,
		},
	}
}

// createSidecarSet stores set, deletes it when the test ends, and waits until the
// manager's cache holds it: the pod webhook reads SidecarSets from there, and a pod
// created before would not see it.
func createSidecarSet(t *testing.T, g Gomega, set *sidecarsv1.SidecarSet) *sidecarsv1.SidecarSet {
	t.Helper()
	g.ExpectWithOffset(1, env.Client().Create(env.Context(), set)).To(Succeed(), "creating SidecarSet %s", set.Name)
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), set) })
	env.WaitForCache(g, set)
	return set
}

// newPod returns a pod of one container, app, labelled caseLabel=value.
func newPod(ns, name, value string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{caseLabel: value}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: appImage}}},
	}
}

// createPod creates pod through a client that records the API server's warnings, and
// returns the pod as the API server stored it, with the warnings.
func createPod(g Gomega, pod *corev1.Pod) (*corev1.Pod, []string) {
	c, recorder := env.ClientWithWarnings(g)
	g.ExpectWithOffset(1, c.Create(env.Context(), pod)).To(Succeed(), "creating pod %s/%s", pod.Namespace, pod.Name)
	var stored corev1.Pod
	g.ExpectWithOffset(1, env.Client().Get(env.Context(), client.ObjectKeyFromObject(pod), &stored)).To(Succeed())
	return &stored, recorder.Take()
}

// containerNames returns the names of a pod's containers, in order.
func containerNames(pod *corev1.Pod) []string {
	var names []string
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	return names
}

// sidecarNames returns the names of a pod's native sidecars, in order: its init
// containers whose restartPolicy is Always, which is how the webhook adds sidecars.
func sidecarNames(pod *corev1.Pod) []string {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			names = append(names, c.Name)
		}
	}
	return names
}

// volumeNames returns the names of a pod's volumes, in order.
func volumeNames(pod *corev1.Pod) []string {
	var names []string
	for _, v := range pod.Spec.Volumes {
		names = append(names, v.Name)
	}
	return names
}

// checkPod returns what the API server would refuse in pod of what Inject can change:
// container names (of every kind) that are no DNS label or not unique, containers without
// an image, volume names that are no DNS label or not unique, mounts and devices of
// volumes the pod does not have, and two mounts of one container at one path.
func checkPod(pod *corev1.Pod) error {
	var problems []string
	names := sets.New[string]()
	all := append(append([]corev1.Container{}, pod.Spec.InitContainers...), pod.Spec.Containers...)
	for _, c := range pod.Spec.EphemeralContainers {
		all = append(all, corev1.Container{Name: c.Name, Image: c.Image})
	}
	volumes := sets.New[string]()
	for _, v := range pod.Spec.Volumes {
		if msgs := content.IsDNS1123Label(v.Name); len(msgs) > 0 {
			problems = append(problems, fmt.Sprintf("volume name %q: %s", v.Name, strings.Join(msgs, "; ")))
		}
		if volumes.Has(v.Name) {
			problems = append(problems, fmt.Sprintf("two volumes named %q", v.Name))
		}
		volumes.Insert(v.Name)
	}
	for _, c := range all {
		if msgs := content.IsDNS1123Label(c.Name); len(msgs) > 0 {
			problems = append(problems, fmt.Sprintf("container name %q: %s", c.Name, strings.Join(msgs, "; ")))
		}
		if names.Has(c.Name) {
			problems = append(problems, fmt.Sprintf("two containers named %q", c.Name))
		}
		names.Insert(c.Name)
		if strings.TrimSpace(c.Image) == "" {
			problems = append(problems, fmt.Sprintf("container %q has no image", c.Name))
		}
		paths := sets.New[string]()
		for _, m := range c.VolumeMounts {
			if !volumes.Has(m.Name) {
				problems = append(problems, fmt.Sprintf("container %q mounts %q, which the pod does not have", c.Name, m.Name))
			}
			if m.MountPath == "" || paths.Has(m.MountPath) {
				problems = append(problems, fmt.Sprintf("container %q: mount path %q empty or taken", c.Name, m.MountPath))
			}
			paths.Insert(m.MountPath)
		}
		for _, d := range c.VolumeDevices {
			if !volumes.Has(d.Name) {
				problems = append(problems, fmt.Sprintf("container %q uses the device %q, which the pod does not have", c.Name, d.Name))
			}
		}
	}
	if len(pod.Spec.Containers) == 0 {
		problems = append(problems, "no container")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// acceptingAPIServer returns a client whose dry runs succeed, whatever the pod: for a
// validator tested without an API server, where only the webhook's own rules refuse.
func acceptingAPIServer() client.Client {
	return fake.NewClientBuilder().Build()
}
