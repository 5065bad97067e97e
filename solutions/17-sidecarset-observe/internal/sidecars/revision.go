package sidecars

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/api/sidecars/v1"
)

// Revision names what a SidecarSet gives a pod: a hash of its containers and volumes,
// and of nothing else, so that a change of its selectors or labels is no new revision.
// Both the webhook, which records it on every pod it injects, and the controller, which
// counts the pods of older revisions, compute it from the stored spec.
func Revision(spec *sidecarsv1.SidecarSetSpec) string {
	data, err := json.Marshal(struct {
		Containers any `json:"containers"`
		Volumes    any `json:"volumes"`
	}{spec.Containers, spec.Volumes})
	if err != nil {
		panic(err) // API types always marshal.
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:10]
}
