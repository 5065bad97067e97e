package v1

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/sidecars"
)

// Inject gives pod the sidecars and volumes of sets, the SidecarSets that select it,
// in their order, and records each SidecarSet it took something from, with its
// revision and the names of the sidecars it took, in the pod's
// sidecars.InjectedAnnotation. It changes pod in place. A sidecar
// goes in as a native sidecar (asSidecar): an init container that restarts Always, after
// the pod's own init containers.
//
// It never makes a valid pod invalid, and never refuses one: what it cannot add is left
// out, with a warning the API server hands back to whoever created the pod:
//   - a SidecarSet the annotation already lists, silently, when the pod has its sidecars
//     (admitted again, or copied from a pod that was injected): sidecars.Runs. A record
//     without them was written by someone else, and is overwritten;
//   - a sidecar whose name a container of the pod, or an earlier sidecar, already has;
//   - a volume whose name the pod already uses, and every sidecar that mounts it;
//   - a sidecar that mounts a volume that is neither the SidecarSet's nor the pod's;
//   - a sidecar validateContainer refuses (a SidecarSet stored without the webhook).
func Inject(pod *corev1.Pod, sets []sidecarsv1.SidecarSet) []string {
	record := sidecars.Injected(pod.Annotations)
	var warnings []string
	changed := false
	for i := range sets {
		set := &sets[i]
		if _, done := record[set.Name]; done && sidecars.Runs(pod, set) {
			continue
		}
		had := len(pod.Spec.InitContainers)
		added, setWarnings := injectSet(pod, set)
		warnings = append(warnings, setWarnings...)
		if added {
			record[set.Name] = sidecars.Entry{Revision: sidecars.Revision(&set.Spec), Containers: namesOf(pod.Spec.InitContainers[had:])}
			changed = true
		}
	}
	if changed {
		if pod.Annotations == nil {
			pod.Annotations = map[string]string{}
		}
		pod.Annotations[sidecars.InjectedAnnotation] = sidecars.FormatInjected(record)
	}
	return warnings
}

// injectSet adds what it can of one SidecarSet to pod: the sidecars that fit, and the
// SidecarSet's volumes with them. It reports whether it added a sidecar; a SidecarSet none
// of whose sidecars fit adds no volume either.
func injectSet(pod *corev1.Pod, set *sidecarsv1.SidecarSet) (bool, []string) {
	var warnings []string
	warn := func(format string, args ...any) {
		warnings = append(warnings, fmt.Sprintf("SidecarSet %s: ", set.Name)+fmt.Sprintf(format, args...))
	}
	podVolumes := volumeNamesIn(pod)

	// The SidecarSet's volumes the pod can take. One whose name the pod uses already is
	// left out: the pod's volume of that name is someone else's.
	own, usable := sets.New[string](), sets.New[string]()
	var volumes []corev1.Volume
	for i := range set.Spec.Volumes {
		v := &set.Spec.Volumes[i]
		switch {
		case own.Has(v.Name):
			continue // A second volume of the name: the validator refuses it.
		case podVolumes.Has(v.Name):
			warn("volume %q is not added: the pod has a volume of that name", v.Name)
		case len(validateVolume(v, field.NewPath("volume"))) > 0:
			warn("volume %q is not added: it is not a valid volume", v.Name)
		default:
			usable.Insert(v.Name)
			volumes = append(volumes, *v.DeepCopy())
		}
		own.Insert(v.Name)
	}

	containerNames := containerNamesIn(pod)
	added := false
	for i := range set.Spec.Containers {
		c := &set.Spec.Containers[i]
		if errs := validateContainer(c, field.NewPath("container")); len(errs) > 0 {
			warn("sidecar %q is not injected: %v", c.Name, errs.ToAggregate())
			continue
		}
		if containerNames.Has(c.Name) {
			warn("sidecar %q is not injected: the pod has a container of that name", c.Name)
			continue
		}
		if missing, why := missingVolume(c, own, usable, podVolumes); missing != "" {
			warn("sidecar %q is not injected: it mounts the volume %q, %s", c.Name, missing, why)
			continue
		}
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, asSidecar(c))
		containerNames.Insert(c.Name)
		added = true
	}
	if !added {
		return false, warnings
	}
	pod.Spec.Volumes = append(pod.Spec.Volumes, volumes...)
	return true, warnings
}

// asSidecar returns a copy of c as a native sidecar: an init container whose
// restartPolicy is Always. The kubelet starts it before the pod's containers, in the
// order of the init containers, restarts it when it exits, stops it after them, and
// leaves it out of the pod's completion: a Job's pod completes when its own containers
// do (see "Native sidecars" in docs/lesson-10.md). A container in spec.containers would
// keep that pod running for ever.
func asSidecar(c *corev1.Container) corev1.Container {
	sidecar := *c.DeepCopy()
	always := corev1.ContainerRestartPolicyAlways
	sidecar.RestartPolicy = &always
	return sidecar
}

// missingVolume returns the first volume c mounts (or uses as a device) that the pod
// will not have for it, and why: a volume of its SidecarSet that was left out, or one
// that is neither the SidecarSet's nor the pod's. A sidecar may mount a volume the pod
// has of its own: sharing the application's files is what many sidecars are for.
func missingVolume(c *corev1.Container, own, usable, podVolumes sets.Set[string]) (string, string) {
	names := make([]string, 0, len(c.VolumeMounts)+len(c.VolumeDevices))
	for _, mount := range c.VolumeMounts {
		names = append(names, mount.Name)
	}
	for _, device := range c.VolumeDevices {
		names = append(names, device.Name)
	}
	for _, name := range names {
		switch {
		case own.Has(name) && !usable.Has(name):
			return name, "which was not added"
		case !own.Has(name) && !podVolumes.Has(name):
			return name, "which is neither the SidecarSet's nor the pod's"
		}
	}
	return "", ""
}

// namesOf returns the names of containers, in their order.
func namesOf(containers []corev1.Container) []string {
	names := make([]string, 0, len(containers))
	for _, c := range containers {
		names = append(names, c.Name)
	}
	return names
}

// containerNamesIn returns the names of pod's containers of every kind: the API server
// wants a container's name unique across all of them, ephemeral containers included.
func containerNamesIn(pod *corev1.Pod) sets.Set[string] {
	names := sidecars.ContainerNames(pod)
	for _, c := range pod.Spec.EphemeralContainers {
		names.Insert(c.Name)
	}
	return names
}

// volumeNamesIn returns the names of pod's volumes.
func volumeNamesIn(pod *corev1.Pod) sets.Set[string] {
	names := sets.New[string]()
	for _, v := range pod.Spec.Volumes {
		names.Insert(v.Name)
	}
	return names
}
