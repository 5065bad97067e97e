package v1

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/api/sidecars/v1"
)

// A validationCase changes a valid SidecarSet and says what the validator answers.
type validationCase struct {
	name   string
	change func(*sidecarsv1.SidecarSet)
	want   []string // the fields of the causes, in order; none: admitted
}

// checkValidation validates, for each case, a valid SidecarSet of one sidecar and one
// volume with the case's change: a bad one is refused with the fields of its problems,
// and nothing else.
func checkValidation(t *testing.T, tests []validationCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			set := newSidecarSet("logging", "x", []corev1.Container{sidecar("log-shipper", mount("logs", "/var/log/app"))}, emptyDir("logs"))
			tt.change(set)
			_, err := validateSidecarSet(set, nil)
			if tt.want == nil {
				g.Expect(err).NotTo(HaveOccurred(), "the SidecarSet should be admitted")
				return
			}
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "the refusal should be an Invalid error (apierrors.NewInvalid), got %v", err)
			g.Expect(testenv.CauseFields(err)).To(Equal(tt.want), "%s: the fields of the refusal: %v", tt.name, err)
		})
	}
}

func TestValidateSelectors(t *testing.T) {
	checkValidation(t, []validationCase{
		{"a valid SidecarSet", func(*sidecarsv1.SidecarSet) {}, nil},
		{"a selector operator that does not exist", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: "Like", Values: []string{"web"}}}}
		}, []string{"spec.selector.matchExpressions[0].operator"}},
		{"a selector label key with a space", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"bad key": "x"}}
		}, []string{"spec.selector.matchLabels"}},
		{"an empty selector, which would select every pod", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Selector = &metav1.LabelSelector{}
		}, []string{"spec.selector"}},
		{"an empty namespace selector: every namespace", func(s *sidecarsv1.SidecarSet) {
			s.Spec.NamespaceSelector = &metav1.LabelSelector{}
		}, nil},
		{"a bad namespace selector", func(s *sidecarsv1.SidecarSet) {
			s.Spec.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "team", Operator: metav1.LabelSelectorOpIn}}}
		}, []string{"spec.namespaceSelector.matchExpressions[0].values"}},
	})
}

func TestValidateContainers(t *testing.T) {
	checkValidation(t, []validationCase{
		{"no container", func(s *sidecarsv1.SidecarSet) { s.Spec.Containers = nil }, []string{"spec.containers"}},
		{"two sidecars of one name", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Containers = append(s.Spec.Containers, sidecar("log-shipper"))
		}, []string{"spec.containers[1].name"}},
		{"every problem of every sidecar, not only the first", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Containers = []corev1.Container{{Name: "Log_Shipper"}, sidecar("log-shipper"), sidecar("log-shipper")}
		}, []string{"spec.containers[0].name", "spec.containers[0].image", "spec.containers[2].name"}},
		{"two sidecars without a name: each one's name is required, neither is a duplicate", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Containers = []corev1.Container{{Image: sidecarImage}, {Image: sidecarImage}}
		}, []string{"spec.containers[0].name", "spec.containers[1].name"}},
		{"a sidecar name that is no DNS label", func(s *sidecarsv1.SidecarSet) { s.Spec.Containers[0].Name = "Log_Shipper" },
			[]string{"spec.containers[0].name"}},
		{"a sidecar without an image", func(s *sidecarsv1.SidecarSet) { s.Spec.Containers[0].Image = "" },
			[]string{"spec.containers[0].image"}},
		{"a mount at the service account token's path", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Containers[0].VolumeMounts = append(s.Spec.Containers[0].VolumeMounts, mount("logs", ReservedMountPath))
		}, []string{"spec.containers[0].volumeMounts[1].mountPath"}},
		{"two mounts at one path", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Containers[0].VolumeMounts = append(s.Spec.Containers[0].VolumeMounts, mount("logs", "/var/log/app"))
		}, []string{"spec.containers[0].volumeMounts[1].mountPath"}},
		{"a host port", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 9102, HostPort: 9102}}
		}, []string{"spec.containers[0].ports[0].hostPort"}},
		{"a sidecar that would not restart", func(s *sidecarsv1.SidecarSet) {
			never := corev1.ContainerRestartPolicy("Never")
			s.Spec.Containers[0].RestartPolicy = &never
		}, []string{"spec.containers[0].restartPolicy"}},
		{"a sidecar that says it restarts Always, as it will", func(s *sidecarsv1.SidecarSet) {
			always := corev1.ContainerRestartPolicyAlways
			s.Spec.Containers[0].RestartPolicy = &always
		}, nil},
	})
}

// An update that leaves the spec alone goes through, even for a SidecarSet the rules
// refuse; one that changes it is checked as a create.
func TestValidateUpdateChecksOnlyAChangedSpec(t *testing.T) {
	g := NewWithT(t)
	validator := &SidecarSetCustomValidator{Pods: acceptingAPIServer()}
	stored := newSidecarSet("old", "x", []corev1.Container{sidecar("proxy"), sidecar("proxy")})
	labelled := stored.DeepCopy()
	labelled.Labels = map[string]string{"team": "web"}
	warnings, err := validator.ValidateUpdate(t.Context(), stored, labelled)
	g.Expect(err).NotTo(HaveOccurred(), "a label on a SidecarSet stored before the rules should go through")
	g.Expect(warnings).To(BeEmpty())

	changed := labelled.DeepCopy()
	changed.Spec.Containers[0].Image = "busybox:1.38"
	_, err = validator.ValidateUpdate(t.Context(), labelled, changed)
	g.Expect(testenv.CauseFields(err)).To(Equal([]string{"spec.containers[1].name"}), "a changed spec is checked whole")
}

func TestValidateVolumes(t *testing.T) {
	checkValidation(t, []validationCase{
		{"two volumes of one name", func(s *sidecarsv1.SidecarSet) { s.Spec.Volumes = append(s.Spec.Volumes, emptyDir("logs")) },
			[]string{"spec.volumes[1].name"}},
		{"two volumes of two names", func(s *sidecarsv1.SidecarSet) { s.Spec.Volumes = append(s.Spec.Volumes, emptyDir("data")) }, nil},
	})
}

func TestValidateVolumeNames(t *testing.T) {
	checkValidation(t, []validationCase{
		{"a volume named like the service account token's", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Volumes = append(s.Spec.Volumes, emptyDir("kube-api-access-x1y2z"))
		}, []string{"spec.volumes[1].name"}},
		{"a volume name that is no DNS label", func(s *sidecarsv1.SidecarSet) { s.Spec.Volumes[0].Name = "Logs" },
			[]string{"spec.volumes[0].name"}},
		{"a volume without a name", func(s *sidecarsv1.SidecarSet) { s.Spec.Volumes[0].Name = "" },
			[]string{"spec.volumes[0].name"}},
	})
}

// Every problem of a SidecarSet in one answer, in the order of its fields.
func TestValidateSidecarSet(t *testing.T) {
	checkValidation(t, []validationCase{
		{"no selector", func(s *sidecarsv1.SidecarSet) { s.Spec.Selector = nil }, []string{"spec.selector"}},
		{"every problem at once, volumes before containers", func(s *sidecarsv1.SidecarSet) {
			s.Spec.Selector = nil
			s.Spec.Containers[0].Image = ""
			s.Spec.Volumes[0].Name = "Logs"
		}, []string{"spec.selector", "spec.volumes[0].name", "spec.containers[0].image"}},
	})
}

func TestAllowedButSurprisingSidecarSetsAreWarnedAbout(t *testing.T) {
	g := NewWithT(t)
	set := newSidecarSet("shared", "x", []corev1.Container{sidecar("reader", corev1.VolumeMount{Name: "data", MountPath: "/data"})})
	warnings, err := validateSidecarSet(set, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(warnings).To(ConsistOf(
		HavePrefix(`spec.containers[0].volumeMounts[0].name: "data" is no volume of this SidecarSet`),
	))
}
