package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
)

// How a pool sets a node's taints is a pure function of the node's taints, those the
// pool gave before (held) and those it gives now (want): one call shows every rule, no
// API server needed.
func TestThePoolSetsOnlyItsOwnTaints(t *testing.T) {
	g := NewWithT(t)
	taint := func(key, value string, effect corev1.TaintEffect) corev1.Taint {
		return corev1.Taint{Key: key, Value: value, Effect: effect}
	}
	node := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{
		taint("admin", "x", corev1.TaintEffectNoSchedule),
		taint("gpu", "admin", corev1.TaintEffectNoExecute), // someone else's: same key, another effect
		taint("gpu", "old", corev1.TaintEffectNoSchedule),  // the pool's, with an old value
		taint("gone", "", corev1.TaintEffectNoExecute),     // the pool's, no longer wanted
		taint("shared", "admin", corev1.TaintEffectNoSchedule),
	}}}
	held := []corev1.Taint{
		taint("gpu", "old", corev1.TaintEffectNoSchedule),
		taint("gone", "", corev1.TaintEffectNoExecute),
	}
	want := []corev1.Taint{
		taint("gpu", "new", corev1.TaintEffectNoSchedule),
		taint("shared", "pool", corev1.TaintEffectNoSchedule), // the node has it from someone else
		taint("fresh", "", corev1.TaintEffectPreferNoSchedule),
	}

	given := setPoolTaints(node, held, want)

	g.Expect(node.Spec.Taints).To(Equal([]corev1.Taint{
		taint("admin", "x", corev1.TaintEffectNoSchedule),
		taint("gpu", "admin", corev1.TaintEffectNoExecute),
		taint("gpu", "new", corev1.TaintEffectNoSchedule),
		taint("shared", "admin", corev1.TaintEffectNoSchedule),
		taint("fresh", "", corev1.TaintEffectPreferNoSchedule),
	}), "the pool changes only its own taints, in place, drops the one it no longer wants, and adds the new at the end")
	g.Expect(given).To(Equal([]corev1.Taint{
		taint("gpu", "new", corev1.TaintEffectNoSchedule),
		taint("fresh", "", corev1.TaintEffectPreferNoSchedule),
	}), "the taints the pool set: not the one someone else holds")
}
