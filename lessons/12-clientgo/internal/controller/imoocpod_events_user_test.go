package controller

import (
	"testing"

	. "github.com/onsi/gomega"
)

// Which ImoocPod a pod event concerns is decided without an API server: the fixture's
// fake clientset is never called, and the queue shows the keys the handler added.
func TestAPodEventReachesOnlyTheImoocPodThatControlsIt(t *testing.T) {
	// TODO(7): Test which ImoocPod a pod event reaches.
	// Fails unless enqueueController queues the ImoocPod that controls a pod, for the pod
	// and for its tombstone, and nothing for a pod it only owns, nor one that a
	// ReplicaSet, another kind of apps.workshop.dev or an ImoocPod of another group
	// controls. See docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
