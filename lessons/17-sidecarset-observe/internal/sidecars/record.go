package sidecars

import (
	"encoding/json"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

// InjectedAnnotation records on a pod which SidecarSets gave it sidecars: for each, the
// revision and the names of the sidecars that went in, as a JSON object:
// {"logging":{"rev":"5f7c9d2a1b","containers":["log-shipper"]}}. The webhook writes it in
// the same patch as the sidecars, so that a pod admitted again with it (a copy of a
// running pod, or a second call of the webhook) is not given them twice, and the
// controller can tell the revision each pod runs, and its sidecars, whatever the
// SidecarSet has become since. Whoever creates or updates a pod can write it too: it says
// which SidecarSets to look at, Runs and RunsRecorded whether the pod has their sidecars.
const InjectedAnnotation = "sidecars.workshop.dev/injected"

// Entry is what the record says of one SidecarSet: the revision the pod was given, and
// the names of the sidecars that went in.
type Entry struct {
	Revision   string   `json:"rev"`
	Containers []string `json:"containers,omitempty"`
}

// UnmarshalJSON reads an entry, or a revision alone: the record's first format,
// {"logging":"5f7c9d2a1b"}, which pods injected before it named the sidecars still carry.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var revision string
	if err := json.Unmarshal(data, &revision); err == nil {
		*e = Entry{Revision: revision}
		return nil
	}
	type entry Entry // without this method
	return json.Unmarshal(data, (*entry)(e))
}

// Injected returns the record of a pod's annotations: SidecarSet name to entry. A missing
// or unreadable annotation is an empty record: a user may have written anything there,
// and the webhook must still admit the pod.
func Injected(annotations map[string]string) map[string]Entry {
	record := map[string]Entry{}
	if value, ok := annotations[InjectedAnnotation]; ok {
		if err := json.Unmarshal([]byte(value), &record); err != nil {
			return map[string]Entry{}
		}
	}
	return record
}

// FormatInjected is the annotation's value for a record. encoding/json sorts the keys,
// so the same record always reads the same.
func FormatInjected(record map[string]Entry) string {
	data, err := json.Marshal(maps.Clone(record))
	if err != nil {
		panic(err) // Strings always marshal.
	}
	return string(data)
}

// Runs reports whether pod has a container of the name of each of set's sidecars, among
// its init containers and its containers: whether it runs the SidecarSet's current
// sidecars, as far as names tell. Those two lists are fixed when the pod is created,
// unlike its annotations (and its ephemeral containers, which kubectl debug adds), so
// they are what a record that lists set must be checked against: a pod created or
// annotated with a record it did not earn, to opt out of a sidecar, has not the sidecars.
func Runs(pod *corev1.Pod, set *sidecarsv1.SidecarSet) bool {
	names := ContainerNames(pod)
	for _, c := range set.Spec.Containers {
		if !names.Has(c.Name) {
			return false
		}
	}
	return len(set.Spec.Containers) > 0
}

// RunsRecorded reports whether pod runs the sidecars entry, its record's entry for set,
// says set gave it: an init container (where the webhook puts sidecars) of each name the
// entry lists. A pod injected before set gained or renamed a sidecar runs the sidecars of
// its revision, not set's current ones (Runs): it is injected, and outdated. An entry of
// the record's first format lists no names: set's current sidecars are checked then.
func RunsRecorded(pod *corev1.Pod, entry Entry, set *sidecarsv1.SidecarSet) bool {
	if len(entry.Containers) == 0 {
		return Runs(pod, set)
	}
	initContainers := sets.New[string]()
	for _, c := range pod.Spec.InitContainers {
		initContainers.Insert(c.Name)
	}
	return initContainers.HasAll(entry.Containers...)
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
