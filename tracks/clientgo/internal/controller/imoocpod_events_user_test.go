package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// Which ImoocPod a pod event concerns is decided without an API server: the fixture's
// fake clientset is never called, and the queue shows the keys the handler added.
func TestAPodEventReachesOnlyTheImoocPodThatControlsIt(t *testing.T) {
	//lesson:12.7
	//lesson:stub _ = NewWithT(t) // the package's tests assert with Gomega; yours too
	ip := unitImoocPod("web", 1)
	controlled := unitPod(ip, "web-a", 1, false)
	changed := func(name string, change func(*metav1.OwnerReference)) *corev1.Pod {
		pod := controlled.DeepCopy()
		pod.Name = name
		change(&pod.OwnerReferences[0])
		return pod
	}
	cases := []struct {
		name  string
		event any
		want  []string
	}{
		{"a pod it controls", controlled, []string{"ns/web"}},
		{"a pod it controls, deleted while the watch was down", cache.DeletedFinalStateUnknown{Key: "ns/web-a", Obj: controlled}, []string{"ns/web"}},
		{"a pod it owns without controlling", changed("owned", func(r *metav1.OwnerReference) { r.Controller = nil }), nil},
		{"a pod a ReplicaSet controls", changed("rs", func(r *metav1.OwnerReference) { r.APIVersion, r.Kind = "apps/v1", "ReplicaSet" }), nil},
		{"a pod another kind of our group controls", changed("set", func(r *metav1.OwnerReference) { r.Kind = "ImoocPodSet" }), nil},
		{"a pod an ImoocPod of another group controls", changed("other", func(r *metav1.OwnerReference) { r.APIVersion = "example.com/v1" }), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, nil)
			f.c.enqueueController(c.event)
			NewWithT(t).Expect(queued(f.c)).To(Equal(c.want), "the keys queued for %s", c.name)
		})
	}
	//lesson:end
}
