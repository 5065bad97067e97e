package v1

import (
	"testing"

	. "github.com/onsi/gomega"
)

// The pod webhook's handler called directly, with the fake client as its reader. That is
// enough here: the handler reads SidecarSets and namespaces and returns a decision, and
// nothing it decides depends on what the fake client leaves out (admission, the status
// subresource, garbage collection). What the API server does with the patch is another
// test's, through envtest.
func TestTheHandlerGivesASidecarOnlyWhereItIsSelected(t *testing.T) {
	// TODO(11): Test the pod handler with the fake client.
	// Write this test: it fails unless the pod webhook's handler, reading through the
	// fake client, gives a SidecarSet's sidecar to a new pod it selects in a namespace
	// its namespaceSelector selects (the namespace is the request's), and none to a pod
	// whose labels or namespace do not match, to a pod of kube-system, or for an empty
	// spec.selector. make check-10 runs it against the solution and against known bugs:
	// it must pass on the first and fail on each bug. See docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
