package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/09-nodepool-deploy/api/nodes/v1"
)

var env *testenv.Env

// TestMain starts an API server with the module's CRD and, from lesson 08 on, its webhook
// configurations, and a manager set up by setup, the function main hands to
// bootstrap.Run. Lesson 09's tests (options_test.go) start managers of their own too.
func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:       testenv.Scheme(nodesv1.AddToScheme),
		WebhookPaths: []string{filepath.Join("..", "config", "webhook")},
		Setup:        setup,
	}, &env))
}

// The manager main runs tells what its controller does in events.k8s.io Events, which
// kubectl describe shows: setup must give the controller the manager's recorder. A pool
// that is deleted once it has the finalizer is cleaned up, and an event tells it.
func TestTheManagerTellsWhatItDoesInEvents(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	name := "events-" + env.Namespace(t)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{nodesv1.MemberLabelPrefix + name: ""}}}
	g.Expect(env.Client().Create(ctx, node)).To(Succeed(), "creating a member of the pool")
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), node) })
	pool := &nodesv1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       nodesv1.NodePoolSpec{Labels: map[string]string{"pool.example/events": "yes"}, Handler: "runc"},
	}
	g.Expect(env.Client().Create(ctx, pool)).To(Succeed(), "creating the pool")
	t.Cleanup(func() { _ = env.Client().Delete(context.Background(), pool) })
	g.Eventually(func(g Gomega) {
		g.Expect(env.Client().Get(ctx, client.ObjectKeyFromObject(pool), pool)).To(Succeed(), "reading the pool")
		g.Expect(pool.Finalizers).To(ContainElement(nodesv1.Finalizer), "the controller should add its finalizer")
	}).Should(Succeed())
	g.Expect(env.Client().Delete(ctx, pool)).To(Succeed(), "deleting the pool")

	g.Eventually(func(g Gomega) {
		var events eventsv1.EventList
		g.Expect(env.Client().List(ctx, &events)).To(Succeed(), "listing the events")
		var reporters []string
		for _, e := range events.Items {
			if e.Regarding.Kind == "NodePool" && e.Regarding.Name == name {
				reporters = append(reporters, e.ReportingController)
			}
		}
		g.Expect(reporters).To(ContainElement("nodepool-controller"),
			"the deleted pool's nodes were cleaned: setup should give the controller the manager's recorder, "+
				"reporting as nodepool-controller, and an event should tell it")
	}).Should(Succeed())
}
