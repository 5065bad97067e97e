package v1

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

// FuzzValidateMyDaemonSet feeds the webhooks arbitrary images, pull policies and node
// selector entries, the way the API server would hand them any JSON a user sends. It
// checks what must hold for every input:
//
//   - the defaulter and the validator never panic (a panic is a refused request for the
//     user, and with failurePolicy=fail a refused write);
//   - a refusal is an Invalid error whose every cause names a field under spec;
//   - create and an update that changes the spec agree, and an update that leaves the
//     spec alone is admitted without a warning;
//   - an accepted image is exactly its parsed parts put back together;
//   - defaulting changes only spec.imagePullPolicy, only when it is empty, does it once
//     (a second pass changes nothing), and keeps an accepted object accepted with the
//     same warnings: the API server calls the mutating webhook first and validates what
//     it returns.
//
// `go test` runs the inputs below, the corpus; `go test -run '^$' -fuzz '^FuzzValidateMyDaemonSet$'
// -fuzztime 30s ./internal/webhook/apps/v1` searches for more. A failing input is saved
// under testdata/fuzz and runs with every `go test` from then on.
func FuzzValidateMyDaemonSet(f *testing.F) {
	corpus := []struct{ image, policy, key, value string }{
		{pauseImage, "", "kubernetes.io/os", "linux"},
		{"busybox", "", "", ""},
		{"registry.k8s.io/pause:latest", "Never", "disk", ""},
		{"localhost:5000/pause@" + pauseDigest, "IfNotPresent", "example.com/gpu", "true"},
		{"[::1]:5000/pause:v1", "Always", "a/b/c", "x"},
		{"", "", "", ""},
		{"pause:", "Sometimes", "bad key", "ssd!"},
		{"Pause", "", "-disk", strings.Repeat("v", 64)},
		{" pause", "", "example.com/", "x"},
		{strings.Repeat("a", 64), "", "k", "v"},
	}
	for _, s := range corpus {
		f.Add(s.image, s.policy, s.key, s.value)
	}

	ctx := context.Background()
	defaulter := &MyDaemonSetCustomDefaulter{}
	validator := &MyDaemonSetCustomValidator{}
	f.Fuzz(func(t *testing.T, image, policy, key, value string) {
		mds := &appsv1.MyDaemonSet{
			ObjectMeta: metav1.ObjectMeta{Namespace: "fuzz", Name: "fuzz"},
			Spec:       appsv1.MyDaemonSetSpec{Image: image, ImagePullPolicy: corev1.PullPolicy(policy)},
		}
		if key != "" || value != "" {
			mds.Spec.NodeSelector = map[string]string{key: value}
		}

		warnings, err := validator.ValidateCreate(ctx, mds.DeepCopy())
		// An update that changes the spec (here the image, which no fuzzed image equals
		// with a space added) is checked as a create; one that leaves it alone is not.
		before := mds.DeepCopy()
		before.Spec.Image += " "
		updateWarnings, updateErr := validator.ValidateUpdate(ctx, before, mds.DeepCopy())
		if testenv.ErrorText(err) != testenv.ErrorText(updateErr) || !equality.Semantic.DeepEqual(warnings, updateWarnings) {
			t.Fatalf("create and update disagree about %+v:\ncreate: %v %q\nupdate: %v %q",
				mds.Spec, err, warnings, updateErr, updateWarnings)
		}
		if w, uerr := validator.ValidateUpdate(ctx, mds.DeepCopy(), mds.DeepCopy()); uerr != nil || len(w) > 0 {
			t.Fatalf("an update that leaves the spec %+v alone should go through without a warning, got: %v %q",
				mds.Spec, uerr, w)
		}

		defaulted := mds.DeepCopy()
		if derr := defaulter.Default(ctx, defaulted); derr != nil {
			t.Fatalf("Default(%+v) failed: %v; a defaulter must cope with any object", mds.Spec, derr)
		}
		checkDefaults(t, mds, defaulted)

		if err != nil {
			testenv.CheckInvalid(t, err, mds.Spec, "spec")
			return
		}

		ref, perr := parseImage(image)
		if perr != nil {
			t.Fatalf("the image %q was accepted, but parseImage refuses it: %v", image, perr)
		}
		if ref.String() != image {
			t.Fatalf("the image %q was accepted, but its parts (name %q, tag %q, digest %q) put back together make %q",
				image, ref.name, ref.tag, ref.digest, ref.String())
		}
		if defaulted.Spec.ImagePullPolicy == "" {
			t.Fatalf("the accepted %+v got no pull policy from the defaulter", mds.Spec)
		}
		defaultedWarnings, derr := validator.ValidateCreate(ctx, defaulted)
		if derr != nil {
			t.Fatalf("%+v was accepted, but not once defaulted to %+v: %v", mds.Spec, defaulted.Spec, derr)
		}
		if !equality.Semantic.DeepEqual(warnings, defaultedWarnings) {
			t.Fatalf("defaulting %+v changed the warnings from %q to %q", mds.Spec, warnings, defaultedWarnings)
		}
	})
}

// checkDefaults checks what the defaulter did to a copy of mds.
func checkDefaults(t *testing.T, mds, defaulted *appsv1.MyDaemonSet) {
	t.Helper()
	if mds.Spec.ImagePullPolicy != "" && defaulted.Spec.ImagePullPolicy != mds.Spec.ImagePullPolicy {
		t.Fatalf("the defaulter replaced the pull policy %q the user chose with %q",
			mds.Spec.ImagePullPolicy, defaulted.Spec.ImagePullPolicy)
	}
	rest := defaulted.DeepCopy()
	rest.Spec.ImagePullPolicy = mds.Spec.ImagePullPolicy
	if !equality.Semantic.DeepEqual(rest, mds) {
		t.Fatalf("the defaulter changed more than spec.imagePullPolicy: %+v became %+v", mds.Spec, defaulted.Spec)
	}
	again := defaulted.DeepCopy()
	if err := (&MyDaemonSetCustomDefaulter{}).Default(context.Background(), again); err != nil ||
		!equality.Semantic.DeepEqual(again, defaulted) {
		t.Fatalf("a second Default changed %+v to %+v (%v); defaulting must be idempotent",
			defaulted.Spec, again.Spec, err)
	}
}
