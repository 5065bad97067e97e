package controller

import (
	"testing"

	. "github.com/onsi/gomega"
)

// What a user reads of an ImoocPod (kubectl get, kubectl describe) is its status, as the
// API server holds it: the test reads it there, through env.Client(), never through the
// manager's cache, which may lag or run ahead of what was written.
func TestTheStatusSaysWhatTheUserSees(t *testing.T) {
	// TODO(9): Test the status a user reads.
	// Fails unless the status of an ImoocPod of 2 replicas, read through the API server,
	// first counts 2 pods, none ready, Ready False for PodsNotReady, observedGeneration
	// at metadata.generation; then, once both pods are ready, 2 ready pods and Ready True,
	// and stays so. See docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
