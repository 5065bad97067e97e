// Package sidecars holds what the pod webhook and the controller must agree on: which
// namespaces are never touched, which pods a SidecarSet selects, the revision of a
// SidecarSet's sidecars, and the annotation that records, on a pod, what it was given.
package sidecars
