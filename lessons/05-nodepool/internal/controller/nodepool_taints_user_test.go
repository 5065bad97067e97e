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
	// Fails unless setPoolTaints gives a held taint its new value in place, drops a held
	// taint want no longer lists, leaves others' taints alone (want's key with another
	// effect, or want's key and effect set by someone else), adds new taints last, and
	// returns only what it set. See docs/testing.md.
	_ = NewWithT(t) // the package's tests assert with Gomega; yours too
}
