package v1

// The names a NodePool gives to what it touches outside its own object. The controller
// and the webhook share them from here, and so would any other client of this API.

// MemberLabelDomain is the prefix of the membership labels, without its slash.
// Kubernetes shows these labels in the ROLES column of `kubectl get nodes`.
const MemberLabelDomain = "node-role.kubernetes.io"

// MemberLabelPrefix + P is the label that makes a node a member of the NodePool P,
// whatever its value. People and tools set it (kubectl label node); the controller only
// reads it.
const MemberLabelPrefix = MemberLabelDomain + "/"

// RecordAnnotationPrefix + P is the annotation in which the NodePool P records, on the
// node itself, the labels and taints it put there, with their values:
// {"labels":{"key":"value"},"taints":[{"key":"key","value":"value","effect":"NoSchedule"}]}.
const RecordAnnotationPrefix = "applied.nodes.workshop.dev/"

// RuntimeClassPrefix + P names the RuntimeClass of the NodePool P. A pod that sets
// runtimeClassName to it runs with the pool's handler, on the pool's nodes.
const RuntimeClassPrefix = "node-pool-"

// Finalizer holds a deleted NodePool in the API server until the controller has taken
// back what the pool gave its nodes.
const Finalizer = "nodes.workshop.dev/cleanup"
