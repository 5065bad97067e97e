package controller

import (
	"testing"

	. "github.com/onsi/gomega"
)

// Which nodes get a pod is a pure function of the MyDaemonSet and the node: a table of
// cases runs in microseconds, no API server needed.
func TestWhichNodesGetAPod(t *testing.T) {
	// TODO(10): Test which nodes get a pod.
	// Fails unless nodeMatches picks every node for an empty selector, only nodes with
	// each label of the selector, no cordoned node, and keeps a NotReady node's pod. See
	// docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
