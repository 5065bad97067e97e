package sidecars

import (
	"encoding/json"
	"maps"
)

// InjectedAnnotation records on a pod which SidecarSets gave it sidecars, and the
// revision of each, as a JSON object: {"logging":"5f7c9d2a1b"}. The webhook writes it in
// the same patch as the sidecars, so a pod that carries it got them, and a pod admitted
// again with it (a copy of a running pod, or a second call of the webhook) is not given
// them twice.
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
