package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
)

// The controller binds its pods itself, so the scheduler never sees them: everything a
// pod needs to run on its node, and to be found again by the next pass, is in the object
// newDaemonPod returns.
func TestTheDaemonPodIsBoundToItsNode(t *testing.T) {
	g := NewWithT(t)
	r := &MyDaemonSetReconciler{Scheme: env.Scheme()}
	mds := &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "agent", UID: "agent-uid"},
		Spec: appsv1.MyDaemonSetSpec{Image: pauseImage, Tolerations: []corev1.Toleration{
			{Key: "example.com/dedicated", Operator: corev1.TolerationOpExists},
		}},
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}

	pod, err := r.newDaemonPod(mds, node)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(pod.Name).To(Equal(podName(mds.Name, node.Name)), "the pod's name comes from its node (podName)")
	g.Expect(pod.Namespace).To(Equal(mds.Namespace), "the pod lives in the MyDaemonSet's namespace")
	g.Expect(pod.Labels).To(HaveKeyWithValue(MyDaemonSetLabel, mds.Name),
		"the label the pass lists the pods by, and the manager's cache selects on")
	g.Expect(pod.Spec.NodeName).To(Equal(node.Name), "the pod is bound to its node through spec.nodeName")
	g.Expect(pod.Spec.Containers).To(ConsistOf(HaveField("Image", pauseImage)), "one container, daemonContainer's")
	g.Expect(pod.Spec.Tolerations).To(Equal(daemonTolerations(mds)),
		"the pod tolerates what daemonTolerations says: spec.tolerations and the taints of a node in trouble")
	ref := metav1.GetControllerOf(pod)
	g.Expect(ref).NotTo(BeNil(), "the pod should have a controller OwnerReference to its MyDaemonSet")
	g.Expect(ref.Kind).To(Equal("MyDaemonSet"))
	g.Expect(ref.UID).To(Equal(mds.UID))
	g.Expect(ref.BlockOwnerDeletion).To(HaveValue(BeTrue()),
		"a foreground delete of the MyDaemonSet waits for its pods (controllerutil.SetControllerReference sets it)")
}

// The pods run with the pull policy the defaulting webhook chose or the user set. Without
// one (this package runs no webhook) the API server defaults the pod's, as in lesson 03.
func TestDaemonPodsUseTheImagePullPolicy(t *testing.T) {
	r := &MyDaemonSetReconciler{Scheme: env.Scheme()}
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
