package sidecars

import (
	"encoding/json"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/tracks/sidecarset/api/sidecars/v1"
)

// InjectedAnnotation records on a pod which SidecarSets gave it sidecars, and the
// revision of each, as a JSON object: {"logging":"5f7c9d2a1b"}. The webhook writes it in
// the same patch as the sidecars, so that a pod admitted again with it (a copy of a
// running pod, or a second call of the webhook) is not given them twice, and the
// controller can tell the revision each pod runs. Whoever creates or updates a pod can
// write it too: it says which SidecarSets to look at, Runs says whether the pod has
// their sidecars.
const InjectedAnnotation = "sidecars.workshop.dev/injected"

// Injected returns the record of a pod's annotations: SidecarSet name to revision. A
// missing or unreadable annotation is an empty record: a user may have written anything
// there, and the webhook must still admit the pod.
func Injected(annotations map[string]string) map[string]string {
	record := map[string]string{}
	if value, ok := annotations[InjectedAnnotation]; ok {
		if err := json.Unmarshal([]byte(value), &record); err != nil {
			return map[string]string{}
		}
	}
	return record
}

// FormatInjected is the annotation's value for a record. encoding/json sorts the keys,
// so the same record always reads the same.
func FormatInjected(record map[string]string) string {
	data, err := json.Marshal(maps.Clone(record))
	if err != nil {
		panic(err) // A map of strings always marshals.
	}
	return string(data)
}

// Runs reports whether pod has a container of the name of each of set's sidecars, among
// its init containers and its containers: whether it runs the SidecarSet's sidecars, as
// far as names tell. Those two lists are fixed when the pod is created, unlike its
// annotations (and its ephemeral containers, which kubectl debug adds), so they are what
// a record that lists set must be checked against: a pod created or annotated with a
// record it did not earn, to opt out of a sidecar or to be counted, has not the sidecars.
// A sidecar renamed since the pod was created counts as missing: set names only the
// sidecars of its current revision.
func Runs(pod *corev1.Pod, set *sidecarsv1.SidecarSet) bool {
	names := ContainerNames(pod)
	for _, c := range set.Spec.Containers {
		if !names.Has(c.Name) {
			return false
		}
	}
	return len(set.Spec.Containers) > 0
}

// ContainerNames returns the names of pod's init containers and containers, the two
// lists fixed when the pod is created; its ephemeral containers are left out.
func ContainerNames(pod *corev1.Pod) sets.Set[string] {
	names := sets.New[string]()
	for _, c := range pod.Spec.InitContainers {
		names.Insert(c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names.Insert(c.Name)
	}
	return names
}
