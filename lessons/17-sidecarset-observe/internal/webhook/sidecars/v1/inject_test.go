package v1

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
)

// What injectSet adds of one SidecarSet to a pod, without an API server: the sidecars
// that fit, as native sidecars (init containers that restart Always), with the
// SidecarSet's volumes, and a warning for each thing it leaves out.
func TestInjectSet(t *testing.T) {
	logs := corev1.VolumeMount{Name: "logs", MountPath: "/var/log/app"}
	data := corev1.VolumeMount{Name: "data", MountPath: "/data"}
	logging := newSidecarSet("logging", "x", []corev1.Container{sidecar("log-shipper", logs)}, emptyDir("logs"))
	reader := newSidecarSet("reader", "x", []corev1.Container{sidecar("reader", data)})
	tests := []struct {
		name         string
		pod          func(*corev1.Pod)
		set          *sidecarsv1.SidecarSet
		wantAdded    bool
		wantSidecars []string
		wantVolumes  []string
		wantWarnings []string // the sidecar or volume each warning names, in order
	}{
		{"its sidecar and its volume", nil, logging, true, []string{"log-shipper"}, []string{"logs"}, nil},
		{"after the pod's own init containers", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: appImage}}
		}, logging, true, []string{"log-shipper"}, []string{"logs"}, nil},
		{"a container of the sidecar's name: no sidecar, no volume", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "log-shipper", Image: appImage})
		}, logging, false, nil, nil,
			[]string{"log-shipper"}},
		{"an init container of the sidecar's name", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "log-shipper", Image: appImage}}
		}, logging, false, nil, nil,
			[]string{"log-shipper"}},
		{"a volume of the SidecarSet's volume's name: neither it nor its sidecar", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{emptyDir("logs")}
		}, logging, false, nil, []string{"logs"}, []string{"logs", "log-shipper"}},
		{"a mount of the pod's own volume", func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{emptyDir("data")} },
			reader, true, []string{"reader"}, []string{"data"}, nil},
		{"a mount of a volume nobody has", nil, reader, false, nil, nil,
			[]string{"reader"}},
		{"a sidecar the validator refuses, stored without it", nil,
			newSidecarSet("bad", "x", []corev1.Container{{Name: "no-image"}}), false, nil, nil,
			[]string{"no-image"}},
		{"one sidecar of two fits: it goes in, with the volumes", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "metrics-agent", Image: appImage})
		}, newSidecarSet("both", "x", []corev1.Container{sidecar("metrics-agent"), sidecar("log-shipper", logs)}, emptyDir("logs")),
			true, []string{"log-shipper"}, []string{"logs"},
			[]string{"metrics-agent"}},
		{"two sidecars of one name, stored without the validator: the first", nil,
			newSidecarSet("twice", "x", []corev1.Container{sidecar("proxy"), sidecar("proxy")}),
			true, []string{"proxy"}, nil, []string{"proxy"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pod := podWith(tt.pod)
			original := pod.DeepCopy()
			added, warnings := injectSet(pod, tt.set)
			g.Expect(added).To(Equal(tt.wantAdded), "injectSet should report whether it added a sidecar")
			g.Expect(checkPod(pod)).To(Succeed(), "the pod should be valid: a sidecar whose name the pod has, "+
				"or an earlier sidecar added (remember each name you add), must be left out")
			g.Expect(pod.Spec.Containers).To(Equal(original.Spec.Containers), "the pod's own containers stay as they were")
			if n := len(original.Spec.InitContainers); n > 0 {
				g.Expect(pod.Spec.InitContainers[:n]).To(Equal(original.Spec.InitContainers),
					"the pod's own init containers stay first, as they were")
			}
			g.Expect(sidecarNames(pod)).To(Equal(tt.wantSidecars),
				"the sidecars, as init containers that restart Always (native sidecars), after the pod's own: asSidecar")
			g.Expect(volumeNames(pod)).To(Equal(tt.wantVolumes), "the pod's volumes")
			expectWarnings(g, warnings, tt.set.Name, tt.wantWarnings)
			g.Expect(pod.Annotations).NotTo(HaveKey(sidecars.InjectedAnnotation), "the record is Inject's to write, not injectSet's")
		})
	}
}

// The record holds each SidecarSet's revision, sidecars.Revision of its spec: a hash of
// what the SidecarSet gives a pod, its containers and volumes, and of nothing else. A new
// label, selector, generation or resourceVersion gives a running pod nothing new, and
// must not count it as outdated (lesson 11); a new image does.
func TestTheRecordHoldsTheRevision(t *testing.T) {
	g := NewWithT(t)
	recorded := func(set *sidecarsv1.SidecarSet) string {
		pod := newPod("ns", "pod", "x")
		Inject(pod, []sidecarsv1.SidecarSet{*set})
		return sidecars.Injected(pod.Annotations)[set.Name].Revision
	}
	set := newSidecarSet("logging", "x", []corev1.Container{sidecar("log-shipper", mount("logs", "/var/log"))}, emptyDir("logs"))
	set.UID, set.ResourceVersion, set.Generation = "4b1f6a0e", "1041", 1

	relabelled := set.DeepCopy()
	relabelled.Labels = map[string]string{"team": "web"}
	relabelled.Spec.Selector.MatchLabels["tier"] = "front"
	relabelled.ResourceVersion, relabelled.Generation = "1187", 2
	g.Expect(recorded(relabelled)).To(Equal(recorded(set)), "the revision recorded should depend only on the "+
		"SidecarSet's containers and volumes (sidecars.Revision of its spec), not on the whole object: a new label, "+
		"selector, generation or resourceVersion is no new revision")
	g.Expect(recorded(set)).To(Equal(sidecars.Revision(&set.Spec)),
		"the record should hold sidecars.Revision of the SidecarSet's spec")

	changed := set.DeepCopy()
	changed.Spec.Containers[0].Image = "busybox:1.38"
	g.Expect(recorded(changed)).NotTo(Equal(recorded(set)), "a new image of a sidecar is a new revision")
}

// What Inject makes of one pod with several SidecarSets, without an API server: each
// one's sidecars in their order, a record of those that added one, nothing twice.
func TestInject(t *testing.T) {
	logs := corev1.VolumeMount{Name: "logs", MountPath: "/var/log/app"}
	logging := *newSidecarSet("logging", "x", []corev1.Container{sidecar("log-shipper", logs)}, emptyDir("logs"))
	metrics := *newSidecarSet("metrics", "x", []corev1.Container{sidecar("metrics-agent")})
	tests := []struct {
		name         string
		pod          func(*corev1.Pod)
		sets         []sidecarsv1.SidecarSet
		wantSidecars []string
		wantVolumes  []string
		wantRecord   []string // the SidecarSets the record lists
		wantWarnings []string // the SidecarSet and the sidecar each warning names, in order
	}{
		{"one SidecarSet: its sidecar and its volume", nil, []sidecarsv1.SidecarSet{logging},
			[]string{"log-shipper"}, []string{"logs"}, []string{"logging"}, nil},
		{"two SidecarSets, in their order", nil, []sidecarsv1.SidecarSet{logging, metrics},
			[]string{"log-shipper", "metrics-agent"}, []string{"logs"}, []string{"logging", "metrics"}, nil},
		{"no SidecarSet: the pod is unchanged", nil, nil, nil, nil, nil, nil},
		{"a SidecarSet that adds nothing is not recorded", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "log-shipper", Image: appImage})
		}, []sidecarsv1.SidecarSet{logging, metrics},
			[]string{"metrics-agent"}, nil, []string{"metrics"},
			[]string{"logging", "log-shipper"}},
		{"two SidecarSets of one sidecar name: the first one's", nil, []sidecarsv1.SidecarSet{
			*newSidecarSet("a", "x", []corev1.Container{sidecar("proxy")}),
			*newSidecarSet("b", "x", []corev1.Container{sidecar("proxy")}),
		}, []string{"proxy"}, nil, []string{"a"},
			[]string{"b", "proxy"}},
		{"a pod injected already: nothing twice, no warning", func(p *corev1.Pod) {
			Inject(p, []sidecarsv1.SidecarSet{logging})
		}, []sidecarsv1.SidecarSet{logging}, []string{"log-shipper"}, []string{"logs"}, []string{"logging"}, nil},
		{"a record that lists the SidecarSet, without its sidecar: injected all the same", func(p *corev1.Pod) {
			p.Annotations = map[string]string{sidecars.InjectedAnnotation: `{"logging":"opted-out"}`}
		}, []sidecarsv1.SidecarSet{logging}, []string{"log-shipper"}, []string{"logs"}, []string{"logging"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			pod := podWith(tt.pod)
			own := pod.DeepCopy().Spec.Containers
			warnings := Inject(pod, tt.sets)
			g.Expect(pod.Spec.Containers).To(Equal(own), "the pod's own containers stay as they were")
			g.Expect(sidecarNames(pod)).To(Equal(tt.wantSidecars), "the pod's sidecars")
			g.Expect(volumeNames(pod)).To(Equal(tt.wantVolumes), "the pod's volumes")
			var record []string
			for name, entry := range sidecars.Injected(pod.Annotations) {
				record = append(record, name)
				for _, set := range tt.sets {
					if set.Name == name {
						g.Expect(entry.Revision).To(Equal(sidecars.Revision(&set.Spec)), "the record should hold sidecars.Revision of %s's spec", name)
					}
				}
			}
			if tt.wantRecord == nil {
				g.Expect(record).To(BeEmpty(), "the record %q", pod.Annotations[sidecars.InjectedAnnotation])
			} else {
				g.Expect(record).To(ConsistOf(tt.wantRecord), "the record %q", pod.Annotations[sidecars.InjectedAnnotation])
			}
			if tt.wantWarnings == nil {
				expectWarnings(g, warnings, "", nil)
			} else {
				expectWarnings(g, warnings, tt.wantWarnings[0], tt.wantWarnings[1:])
			}
			g.Expect(checkPod(pod)).To(Succeed(), "the pod should be valid")
		})
	}
}

// podWith returns the pod the table tests start from, newPod's, changed by change
// when it is not nil.
func podWith(change func(*corev1.Pod)) *corev1.Pod {
	pod := newPod("ns", "pod", "x")
	if change != nil {
		change(pod)
	}
	return pod
}

// expectWarnings checks that there is one warning for each of names, in order, each
// starting with what warn writes for SidecarSet set and naming the sidecar or volume it
// left out. The rest of its words are the writer's.
func expectWarnings(g Gomega, warnings []string, set string, names []string) {
	g.ExpectWithOffset(1, warnings).To(HaveLen(len(names)), "one warning for each of %q: %q", names, warnings)
	for i, name := range names {
		g.ExpectWithOffset(1, warnings[i]).To(And(HavePrefix("SidecarSet %s: ", set), ContainSubstring(name)),
			"a warning should say what it left out, %s", name)
	}
}
