//stage:4

package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/solutions/04-mydaemonset-webhooks/api/apps/v1"
)

// The pods run with the pull policy the defaulting webhook chose or the user set. Without
// one (this package runs no webhook) the API server defaults the pod's, as in lesson 03.
func TestDaemonPodsUseTheImagePullPolicy(t *testing.T) {
	r := &MyDaemonSetReconciler{Scheme: env.Client.Scheme()}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	for _, policy := range []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever, ""} {
		name := string(policy)
		if name == "" {
			name = "unset"
		}
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			mds := &appsv1.MyDaemonSet{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "agent-uid"},
				Spec:       appsv1.MyDaemonSetSpec{Image: pauseImage, ImagePullPolicy: policy},
			}
			pod, err := r.newDaemonPod(mds, node)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pod.Spec.Containers).To(ConsistOf(HaveField("ImagePullPolicy", policy)),
				"the pod's container should run with spec.imagePullPolicy %q", policy)
		})
	}
}

//stage:end
