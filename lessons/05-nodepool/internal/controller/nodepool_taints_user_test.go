package controller

import (
	"testing"

	. "github.com/onsi/gomega"
)

// How a pool sets a node's taints is a pure function of the node's taints, those the
// pool gave before (held) and those it gives now (want): one call shows every rule, no
// API server needed.
func TestThePoolSetsOnlyItsOwnTaints(t *testing.T) {
	// TODO(9): Test how the pool sets a node's taints.
	// Write this test: it fails unless setPoolTaints, on a node that has taints of its
	// own and of the pool's, gives a held taint want's new value in its place, drops a
	// held taint want no longer lists, leaves alone a taint of want's key with another
	// effect and one of want's key and effect that someone else set, adds want's new
	// taints at the end, and returns only the taints it set. make check-5 runs it
	// against the solution and against known bugs: it must pass on the first and fail
	// on each bug. See docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
