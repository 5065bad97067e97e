package controller

import (
	"testing"

	. "github.com/onsi/gomega"
)

// Which ImoocPod a pod event concerns is decided without an API server: the fixture's
// fake clientset is never called, and the queue shows the keys the handler added.
func TestAPodEventReachesOnlyTheImoocPodThatControlsIt(t *testing.T) {
	// TODO(7): Test which ImoocPod a pod event reaches.
	// Write this test: it fails unless enqueueController queues the key of the ImoocPod
	// that controls a pod, for the pod itself and for a tombstone of it, and queues
	// nothing for a pod it owns without controlling, one a ReplicaSet controls, one
	// another kind of apps.workshop.dev controls, or one an ImoocPod of another group
	// controls. make check-12 runs it against the solution and
	// against known bugs: it must pass on the first and fail on each bug. See
	// docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
