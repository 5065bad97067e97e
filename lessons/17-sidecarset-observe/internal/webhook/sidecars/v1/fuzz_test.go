package v1

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/internal/sidecars"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// FuzzValidateSidecarSet feeds the validator SidecarSets of arbitrary names, images,
// mounts, volumes, selectors, host ports, pull policies, resources and probes, and checks
// what must hold for all of them:
//
//   - it never panics (a panic is a refused request);
//   - a refusal is an Invalid error whose every cause names a field under spec;
//   - create and an update that changes the spec agree; an update that leaves the spec
//     alone is admitted without a warning;
//   - a SidecarSet it accepts is one the pod webhook can use: injected into a valid pod
//     whose names it does not take, every sidecar whose mounts are the SidecarSet's own
//     gets in, and the API server accepts the pod (a dry run).
//
// The validator asks the API server too (dryRunErrors): the target needs one, which
// dryRunTarget gives it, also while fuzzing (fuzzWithAPIServer). `go test` runs the
// inputs below; `go test -run '^$' -fuzz '^FuzzValidateSidecarSet$' -fuzztime 30s
// ./internal/webhook/sidecars/v1` searches for more.
func FuzzValidateSidecarSet(f *testing.F) {
	corpus := []struct {
		name, image, mountName, mountPath, volume, key, value, operator string
		hostPort                                                        int32
		pullPolicy, request, limit                                      string
		probePort                                                       int32
	}{
		{"log-shipper", sidecarImage, "logs", "/var/log/app", "logs", "logging", "enabled", "", 0, "", "", "", 0},
		{"proxy", sidecarImage, "", "", "", "app", "web", "In", 0, "IfNotPresent", "100m", "1", 15001},
		{"", "", "", "", "", "", "", "", 0, "", "", "", 0},
		{"Proxy", " ", "logs", "", "Logs", "bad key", "x!", "Like", 8080, "always", "2", "1", -1},
		{"app", sidecarImage, "kube-api-access-abc", ReservedMountPath, "kube-api-access-abc", "a/b/c", "", "Exists", 0, "", "", "", 0},
		{"proxy", sidecarImage, "data", "/data", "logs", "app", "", "DoesNotExist", 0, "Never", "", "500m", 0},
		{strings.Repeat("a", 64), sidecarImage, "logs", ReservedMountPath + "/", "logs", "k", "v", "NotIn", 0, "", "1", "", 70000},
		{"agent", sidecarImage, "", "", "", "app", "web", "", 0, "", "-1", "", -1},
	}
	for _, c := range corpus {
		f.Add(c.name, c.image, c.mountName, c.mountPath, c.volume, c.key, c.value, c.operator, c.hostPort,
			c.pullPolicy, c.request, c.limit, c.probePort)
	}

	ctx := context.Background()
	f.Fuzz(func(t *testing.T, name, image, mountName, mountPath, volume, key, value, operator string, hostPort int32,
		pullPolicy, request, limit string, probePort int32) {
		pods, namespace := dryRunTarget(t)
		validator := &SidecarSetCustomValidator{Pods: pods, Namespace: namespace}
		c := corev1.Container{Name: name, Image: image, ImagePullPolicy: corev1.PullPolicy(pullPolicy)}
		if mountName != "" || mountPath != "" {
			c.VolumeMounts = []corev1.VolumeMount{{Name: mountName, MountPath: mountPath}}
		}
		if hostPort != 0 {
			c.Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: hostPort}}
		}
		// The CRD's schema refuses a quantity that does not parse: such a SidecarSet never
		// reaches the validator.
		if q, err := resource.ParseQuantity(request); err == nil {
			c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: q}
		}
		if q, err := resource.ParseQuantity(limit); err == nil {
			c.Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: q}
		}
		switch {
		case probePort < 0:
			c.ReadinessProbe = &corev1.Probe{} // no handler
		case probePort > 0:
			c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(probePort)}}}
		}
		set := &sidecarsv1.SidecarSet{
			ObjectMeta: metav1.ObjectMeta{Name: "fuzz"},
			Spec: sidecarsv1.SidecarSetSpec{
				Selector:   &metav1.LabelSelector{MatchLabels: map[string]string{"fuzz": "true"}},
				Containers: []corev1.Container{c, {Name: "second", Image: sidecarImage}},
			},
		}
		if volume != "" {
			set.Spec.Volumes = []corev1.Volume{emptyDir(volume)}
		}
		switch {
		case operator != "":
			requirement := metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOperator(operator)}
			if value != "" {
				requirement.Values = []string{value}
			}
			set.Spec.Selector.MatchExpressions = []metav1.LabelSelectorRequirement{requirement}
		case key != "" || value != "":
			set.Spec.Selector.MatchLabels = map[string]string{key: value}
		}

		warnings, err := validator.ValidateCreate(ctx, set.DeepCopy())
		before := set.DeepCopy()
		before.Spec.Containers[1].Image += "-before"
		updateWarnings, updateErr := validator.ValidateUpdate(ctx, before, set.DeepCopy())
		if testenv.ErrorText(err) != testenv.ErrorText(updateErr) || !equality.Semantic.DeepEqual(warnings, updateWarnings) {
			t.Fatalf("create and update disagree about %+v:\ncreate: %v %q\nupdate: %v %q", set.Spec, err, warnings, updateErr, updateWarnings)
		}
		if w, uerr := validator.ValidateUpdate(ctx, set.DeepCopy(), set.DeepCopy()); uerr != nil || len(w) > 0 {
			t.Fatalf("an update that leaves the spec alone should go through without a warning, got: %v %q", uerr, w)
		}
		if err != nil {
			if !apierrors.IsInvalid(err) || len(testenv.Causes(err)) == 0 {
				t.Fatalf("the refusal of %+v should be an Invalid error with causes, got %T: %v", set.Spec, err, err)
			}
			for _, cause := range testenv.Causes(err) {
				if !strings.HasPrefix(cause.Field, "spec.") {
					t.Fatalf("the refusal of %+v has a cause outside spec: %+v", set.Spec, cause)
				}
			}
			return
		}

		// Accepted: a valid pod whose names it does not take gets every sidecar whose
		// mounts the SidecarSet brings, and the API server accepts it.
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "fuzz-", Namespace: namespace},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "fuzz-app-x", Image: appImage}}},
		}
		if slices.ContainsFunc(set.Spec.Containers, func(c corev1.Container) bool { return c.Name == "fuzz-app-x" }) {
			return
		}
		injectWarnings := Inject(pod, []sidecarsv1.SidecarSet{*set})
		if err := checkPod(pod); err != nil {
			t.Fatalf("injecting the accepted %+v made an invalid pod: %v", set.Spec, err)
		}
		if err := pods.Create(ctx, pod, client.DryRunAll); err != nil {
			t.Fatalf("the API server refuses the pod the accepted %+v makes: %v", set.Spec, err)
		}
		ownMounts := volume != "" && (mountName == "" || mountName == volume) || len(c.VolumeMounts) == 0
		if ownMounts && (len(sidecarNames(pod)) != 2 || len(injectWarnings) > 0) {
			t.Fatalf("the accepted %+v should inject both sidecars, got %v, warnings %q", set.Spec, sidecarNames(pod), injectWarnings)
		}
	})
}

// FuzzInject feeds Inject pods and SidecarSets of arbitrary names, unvalidated, as a
// SidecarSet stored while the validating webhook was not installed could be, and a record
// annotation of any text. It checks what the pod webhook promises:
//
//   - it never panics;
//   - a valid pod stays valid, whatever the SidecarSets;
//   - the pod's own containers stay unchanged, its init containers and volumes stay first
//     and unchanged;
//   - each SidecarSet the record lists was listed before or added something, and every
//     init container added is a native sidecar of a SidecarSet the record lists;
//   - the patch the webhook answers with (additions) makes the injected pod of the pod;
//   - a second Inject with the same SidecarSets changes nothing.
func FuzzInject(f *testing.F) {
	corpus := []struct{ app, appVolume, sidecar, mount, volume, second, record string }{
		{"app", "", "log-shipper", "logs", "logs", "metrics-agent", ""},
		{"app", "logs", "log-shipper", "logs", "logs", "log-shipper", ""},
		{"log-shipper", "", "log-shipper", "", "", "proxy", ""},
		{"app", "data", "reader", "data", "", "", `{"first":"abc"}`},
		{"app", "", "reader", "data", "", "Bad_Name", "not json"},
		{"app", "", "", "", "kube-api-access-x", "proxy", `{"second":"x"}`},
	}
	for _, c := range corpus {
		f.Add(c.app, c.appVolume, c.sidecar, c.mount, c.volume, c.second, c.record)
	}
	f.Fuzz(func(t *testing.T, app, appVolume, sidecarName, mount, volume, second, record string) {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: app, Image: appImage}}}}
		if appVolume != "" {
			pod.Spec.Volumes = []corev1.Volume{emptyDir(appVolume)}
		}
		if record != "" {
			pod.Annotations = map[string]string{sidecars.InjectedAnnotation: record}
		}
		first := sidecarsv1.SidecarSet{ObjectMeta: metav1.ObjectMeta{Name: "first"}}
		c := corev1.Container{Name: sidecarName, Image: sidecarImage}
		if mount != "" {
			c.VolumeMounts = []corev1.VolumeMount{{Name: mount, MountPath: "/mnt"}}
		}
		first.Spec.Containers = []corev1.Container{c}
		if volume != "" {
			first.Spec.Volumes = []corev1.Volume{emptyDir(volume)}
		}
		sets := []sidecarsv1.SidecarSet{first, {ObjectMeta: metav1.ObjectMeta{Name: "second"},
			Spec: sidecarsv1.SidecarSetSpec{Containers: []corev1.Container{{Name: second, Image: sidecarImage}}}}}

		original := pod.DeepCopy()
		valid := checkPod(original) == nil
		before := sidecars.Injected(original.Annotations)
		Inject(pod, sets)

		if valid {
			if err := checkPod(pod); err != nil {
				t.Fatalf("Inject made the valid pod %+v invalid: %v\nresult: %+v", original.Spec, err, pod.Spec)
			}
		}
		if !equality.Semantic.DeepEqual(pod.Spec.Containers, original.Spec.Containers) ||
			!equality.Semantic.DeepEqual(pod.Spec.InitContainers[:len(original.Spec.InitContainers)], original.Spec.InitContainers) ||
			!equality.Semantic.DeepEqual(pod.Spec.Volumes[:len(original.Spec.Volumes)], original.Spec.Volumes) {
			t.Fatalf("Inject changed the pod's own containers or volumes: %+v became %+v", original.Spec, pod.Spec)
		}
		after := sidecars.Injected(pod.Annotations)
		// A sidecar's name may be in both SidecarSets: one of them must be listed.
		sidecarsOf := map[string][]string{}
		for _, set := range sets {
			for _, c := range set.Spec.Containers {
				sidecarsOf[c.Name] = append(sidecarsOf[c.Name], set.Name)
			}
		}
		for _, c := range pod.Spec.InitContainers[len(original.Spec.InitContainers):] {
			if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
				t.Fatalf("the sidecar %q was added as an init container that does not restart Always: %+v", c.Name, c)
			}
			if !slices.ContainsFunc(sidecarsOf[c.Name], func(set string) bool { _, listed := after[set]; return listed }) {
				t.Fatalf("the sidecar %q was added, but the record %q does not list its SidecarSet", c.Name, pod.Annotations[sidecars.InjectedAnnotation])
			}
		}
		if len(pod.Spec.InitContainers) > len(original.Spec.InitContainers) {
			for name := range after {
				if _, was := before[name]; !was && !slices.ContainsFunc(sets, func(s sidecarsv1.SidecarSet) bool { return s.Name == name }) {
					t.Fatalf("the record lists %q, which neither the pod's record nor the SidecarSets had", name)
				}
			}
		}
		// The webhook's answer, additions, applied to the pod as the API server received it,
		// makes the injected pod.
		raw, err := json.Marshal(original)
		if err != nil {
			t.Fatal(err)
		}
		ops, err := json.Marshal(additions(original, pod))
		if err != nil {
			t.Fatal(err)
		}
		patch, err := jsonpatch.DecodePatch(ops)
		if err != nil {
			t.Fatalf("the patch %s does not decode: %v", ops, err)
		}
		patched, err := patch.Apply(raw)
		if err != nil {
			t.Fatalf("the patch %s does not apply to %s: %v", ops, raw, err)
		}
		// Compared as JSON, which is what the API server reads: JSON has no invalid UTF-8.
		var got, want corev1.Pod
		injected, err := json.Marshal(pod)
		if err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(json.Unmarshal(patched, &got), json.Unmarshal(injected, &want)); err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(got, want) {
			t.Fatalf("the patch %s makes %s of the pod %s, not the injected %s", ops, patched, raw, injected)
		}
		again := pod.DeepCopy()
		Inject(again, sets)
		if !equality.Semantic.DeepEqual(again, pod) {
			t.Fatalf("a second Inject changed the pod: %+v became %+v", pod.Spec, again.Spec)
		}
	})
}
