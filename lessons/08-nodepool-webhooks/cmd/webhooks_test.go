package main

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	nodesv1 "github.com/kube-workshop/operator-workshop/lessons/08-nodepool-webhooks/api/nodes/v1"
)

// The API server calls the webhooks for every NodePool as soon as their configurations
// exist, and with failurePolicy=fail it refuses the NodePool when they do not answer: a
// NodePool is admitted only when the manager serves them.
func TestTheManagerServesTheNodePoolWebhooks(t *testing.T) {
	g := NewWithT(t)
	pool := &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "webhooks-" + env.Namespace(t)},
		Spec:       nodesv1.NodePoolSpec{Labels: map[string]string{"pool.example/webhooks": "yes"}, Handler: "runc"},
	}
	g.Expect(env.Client().Create(env.Context(), pool)).To(Succeed(),
		"the API server calls the manager's NodePool webhooks: setup should register them")
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), pool) })
}
