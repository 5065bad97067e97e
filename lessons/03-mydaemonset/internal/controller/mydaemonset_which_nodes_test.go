package controller

import (
	"testing"

	. "github.com/onsi/gomega"
)

// Which nodes get a pod is a pure function of the MyDaemonSet and the node: a table of
// cases runs in microseconds, no API server needed.
func TestWhichNodesGetAPod(t *testing.T) {
	// TODO(13): Test which nodes get a pod.
	// Write this test: it fails unless nodeMatches gives a pod to every node when the
	// selector is empty, to a node with every label of the selector and to no node that
	// lacks one or has another value, to no cordoned node, and keeps the pod of a node
	// that is not Ready. make check-3 runs it against the solution and against known
	// bugs: it must pass on the first and fail on each bug. See docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
