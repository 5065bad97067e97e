package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/16-mydaemonset-policies/api/apps/v1"
)

func TestTaintsAllow(t *testing.T) {
	dedicated := corev1.Taint{Key: "example.com/dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	draining := corev1.Taint{Key: "example.com/draining", Effect: corev1.TaintEffectNoExecute}
	preferred := corev1.Taint{Key: "example.com/spare", Effect: corev1.TaintEffectPreferNoSchedule}
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute}
	tolerateDedicated := corev1.Toleration{Key: "example.com/dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu"}
	tolerateAll := corev1.Toleration{Operator: corev1.TolerationOpExists}
	for _, tc := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		start, stay bool
	}{
		{"no taint", nil, nil, true, true},
		{"PreferNoSchedule keeps no pod away", []corev1.Taint{preferred}, nil, true, true},
		{"NoSchedule: no new pod, the old one stays", []corev1.Taint{dedicated}, nil, false, true},
		{"NoSchedule tolerated", []corev1.Taint{dedicated}, []corev1.Toleration{tolerateDedicated}, true, true},
		{"NoExecute: no pod at all", []corev1.Taint{draining}, nil, false, false},
		{"NoExecute and a tolerated NoSchedule", []corev1.Taint{dedicated, draining},
			[]corev1.Toleration{tolerateDedicated}, false, false},
		{"everything tolerated", []corev1.Taint{dedicated, draining}, []corev1.Toleration{tolerateAll}, true, true},
		{"a NotReady node's taint is always tolerated", []corev1.Taint{notReady}, nil, true, true},
		{"an unreachable node's taint is always tolerated",
			[]corev1.Taint{{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute}}, nil, true, true},
		// The node lifecycle controller taints a node by its conditions; a DaemonSet's
		// pods tolerate these, so that a node in trouble still gets its daemon.
		{"memory pressure is tolerated", []corev1.Taint{{Key: corev1.TaintNodeMemoryPressure, Effect: corev1.TaintEffectNoSchedule}},
			nil, true, true},
		{"disk pressure is tolerated", []corev1.Taint{{Key: corev1.TaintNodeDiskPressure, Effect: corev1.TaintEffectNoSchedule}},
			nil, true, true},
		{"PID pressure is tolerated", []corev1.Taint{{Key: corev1.TaintNodePIDPressure, Effect: corev1.TaintEffectNoSchedule}},
			nil, true, true},
		// A DaemonSet tolerates it only for pods on the host's network: a pod on the pod
		// network cannot start before the node's network is up. Ours never use the host's.
		{"an unavailable network keeps a new pod away",
			[]corev1.Taint{{Key: corev1.TaintNodeNetworkUnavailable, Effect: corev1.TaintEffectNoSchedule}}, nil, false, true},
		// Cordon is nodeMatches' business (a cordoned node loses its pod), not a taint's.
		{"the taint of a cordon is not tolerated",
			[]corev1.Taint{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}, nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			mds := &appsv1.MyDaemonSet{Spec: appsv1.MyDaemonSetSpec{Tolerations: tc.tolerations}}
			node := &corev1.Node{Spec: corev1.NodeSpec{Taints: tc.taints}}
			start, stay := taintsAllow(mds, node)
			g.Expect(start).To(Equal(tc.start), "a new pod may start")
			g.Expect(stay).To(Equal(tc.stay), "a running pod may stay")
		})
	}
}
