package sidecars

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/11-sidecarset-status/api/sidecars/v1"
)

// A pod runs a SidecarSet's sidecars when it has a container of each of their names,
// among its init containers and containers; its ephemeral containers, which can be
// added later, do not count.
func TestRuns(t *testing.T) {
	set := &sidecarsv1.SidecarSet{Spec: sidecarsv1.SidecarSetSpec{Containers: []corev1.Container{{Name: "log-shipper"}, {Name: "metrics-agent"}}}}
	tests := []struct {
		name string
		pod  corev1.PodSpec
		want bool
	}{
		{"both sidecars, as init containers", corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "log-shipper"}, {Name: "metrics-agent"}},
			Containers:     []corev1.Container{{Name: "app"}}}, true},
		{"one of them a container", corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "log-shipper"}},
			Containers:     []corev1.Container{{Name: "app"}, {Name: "metrics-agent"}}}, true},
		{"one missing", corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "log-shipper"}},
			Containers:     []corev1.Container{{Name: "app"}}}, false},
		{"none", corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}, false},
		{"one an ephemeral container", corev1.PodSpec{
			InitContainers:      []corev1.Container{{Name: "log-shipper"}},
			Containers:          []corev1.Container{{Name: "app"}},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "metrics-agent"}}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			g.Expect(Runs(&corev1.Pod{Spec: tt.pod}, set)).To(Equal(tt.want))
		})
	}
}
