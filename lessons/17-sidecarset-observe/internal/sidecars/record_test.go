package sidecars

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
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

// The record names, for each SidecarSet, the revision and the sidecars; a record of its
// first format, a revision alone, reads as an entry that names no sidecar; one that does
// not parse, as no record.
func TestInjectedReadsEitherFormat(t *testing.T) {
	g := NewWithT(t)
	read := func(value string) map[string]Entry { return Injected(map[string]string{InjectedAnnotation: value}) }
	entry := Entry{Revision: "5f7c9d2a1b", Containers: []string{"log-shipper"}}
	g.Expect(read(FormatInjected(map[string]Entry{"logging": entry}))).To(Equal(map[string]Entry{"logging": entry}),
		"a record should read back as FormatInjected wrote it")
	g.Expect(read(`{"logging":"5f7c9d2a1b","metrics":{"rev":"0a1b2c3d4e","containers":["metrics-agent"]}}`)).To(Equal(map[string]Entry{
		"logging": {Revision: "5f7c9d2a1b"},
		"metrics": {Revision: "0a1b2c3d4e", Containers: []string{"metrics-agent"}},
	}), "an entry of the first format, a revision alone, should read as an entry without names")
	g.Expect(read(`{"logging":`)).To(BeEmpty(), "a record that does not parse reads as none")
	g.Expect(read(`{"logging":42}`)).To(BeEmpty(), "a record that does not parse reads as none")
}
