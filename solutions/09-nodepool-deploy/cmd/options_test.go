package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/leaderelection"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The secure metrics endpoint asks the API server about every scraper, with the
// manager's own identity: the role controller-gen writes from the RBAC markers
// (config/rbac/role.yaml) must let it.
func TestTheManagersRoleAllowsTheMetricsFilter(t *testing.T) {
	env.ExpectRoleAllowsMetricsFilter(t, filepath.Join("..", "config", "rbac", "role.yaml"))
}

// The lease's timing must be set, and in the order client-go requires: a leader gives up
// (RenewDeadline) before its lease expires (LeaseDuration), and retries (RetryPeriod,
// plus up to 20% jitter) several times before it gives up.
func TestTheLeaseTimingIsSetAndConsistent(t *testing.T) {
	g := NewWithT(t)
	var o ctrl.Options
	leaderElection(&o)
	g.Expect(o.LeaseDuration).NotTo(BeNil(), "leaderElection should set LeaseDuration")
	g.Expect(o.RenewDeadline).NotTo(BeNil(), "leaderElection should set RenewDeadline")
	g.Expect(o.RetryPeriod).NotTo(BeNil(), "leaderElection should set RetryPeriod")
	g.Expect(*o.LeaseDuration).To(BeNumerically(">", *o.RenewDeadline),
		"LeaseDuration must be greater than RenewDeadline: a leader that cannot renew must stop before another may start")
	g.Expect(float64(*o.RenewDeadline)).To(BeNumerically(">", leaderelection.JitterFactor*float64(*o.RetryPeriod)),
		"RenewDeadline must be greater than RetryPeriod times client-go's JitterFactor (1.2)")
	g.Expect(o.LeaderElectionReleaseOnCancel).To(BeTrue(),
		"leaderElection should set LeaderElectionReleaseOnCancel, so that a replica that stops cleanly hands the lease over at once")
}

// Two replicas with the same lease: one leads, the other waits; when the leader stops
// cleanly (a rolling update, SIGTERM), it releases the lease and the other one leads.
func TestASecondReplicaWaitsThenLeadsWhenTheLeaderStops(t *testing.T) {
	g := NewWithT(t)
	ns := env.Namespace(t)
	const id = "nodepool-test.workshop.dev"
	start := func() (ctrl.Manager, context.CancelFunc, <-chan error) {
		o := ctrl.Options{
			Scheme:                  env.Scheme(),
			Metrics:                 metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress:  "0",
			LeaderElection:          true,
			LeaderElectionID:        id,
			LeaderElectionNamespace: ns,
		}
		leaderElection(&o)
		mgr, err := ctrl.NewManager(env.Config(), o)
		g.Expect(err).NotTo(HaveOccurred())
		ctx, cancel := context.WithCancel(env.Context())
		done := make(chan error, 1)
		stopped := make(chan struct{})
		go func() {
			done <- mgr.Start(ctx)
			close(stopped)
		}()
		t.Cleanup(func() {
			cancel()
			<-stopped
		})
		return mgr, cancel, done
	}
	holder := func() string {
		var lease coordinationv1.Lease
		g.Expect(env.Client().Get(env.Context(), client.ObjectKey{Namespace: ns, Name: id}, &lease)).To(Succeed())
		return ptrValue(lease.Spec.HolderIdentity)
	}

	first, stopFirst, firstDone := start()
	g.Eventually(first.Elected()).Should(BeClosed(), "the first replica should take the free lease")
	leader := holder()
	second, _, _ := start()
	g.Consistently(second.Elected(), 3*time.Second).ShouldNot(BeClosed(), "the second replica must wait while the first one holds the lease")

	stopFirst()
	g.Expect(<-firstDone).To(Succeed())
	g.Expect(holder()).NotTo(Equal(leader),
		"a replica that stopped cleanly should have released the lease (LeaderElectionReleaseOnCancel)")
	// The second replica sees the lease free at its next try, and client-go tries every
	// RetryPeriod plus up to JitterFactor times it: that clock paces this wait.
	g.Eventually(second.Elected()).WithTimeout(testenv.EventuallyTimeout+nextTry()).Should(BeClosed(),
		"the second replica should lead once the lease is free")
}

// nextTry is the longest a replica waits between two tries of the lease: RetryPeriod
// (controller-runtime's 2s until leaderElection sets it) and its jitter.
func nextTry() time.Duration {
	var o ctrl.Options
	leaderElection(&o)
	retry := 2 * time.Second
	if o.RetryPeriod != nil {
		retry = *o.RetryPeriod
	}
	return time.Duration((1 + leaderelection.JitterFactor) * float64(retry))
}

// A spec change patches every member of the pool in one pass: the manager's client-side
// rate limiter must let the patches of a change on 500 members out in one burst, or it
// alone holds them for seconds (3 s at the workshop's default limits, 100 a second
// after a burst of 200), and refill that burst within a couple of seconds for the next
// change. make bench-nodepool measures the whole change.
func TestTheClientLimitsLetAPoolChangeOutInOneBurst(t *testing.T) {
	g := NewWithT(t)
	o := managerOptions()
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o.BindFlags(fs)
	g.Expect(fs.Parse(nil)).To(Succeed())
	const members = 500
	g.Expect(o.KubeAPIBurst).To(BeNumerically(">", members),
		"--kube-api-burst should default to more than the %d patches of a change on %d members", members, members)
	g.Expect(float64(o.KubeAPIBurst)/o.KubeAPIQPS).To(BeNumerically("<=", 2),
		"--kube-api-qps should default to a rate that refills the burst within 2 s")
}

// A pass that patches hundreds of nodes at once ends before the watch has brought back
// the last of them, and their events queue the next pass at once: the manager's client
// must not show that pass those nodes as they were, or it patches them again with the
// old resourceVersion and is refused, a wasted request each. Its reads wait until its
// cache has seen its own writes.
func TestTheManagersClientReadsItsOwnNodePatches(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	o := ctrl.Options{
		Scheme:                 env.Scheme(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
	managerOptions().Configure(&o)
	c := env.StartManager(t, env.Config(), o).GetClient()

	const label, nodes = "read-own-writes.workshop.dev/round", 20
	for i := range nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("read-own-writes-%02d", i), Labels: map[string]string{label: "0"},
		}}
		g.Expect(env.Client().Create(ctx, node)).To(Succeed())
		t.Cleanup(func() { _ = env.Client().Delete(context.Background(), node) })
	}
	inRound := func(round string) []corev1.Node {
		var list corev1.NodeList
		g.Expect(c.List(ctx, &list, client.MatchingLabels{label: round})).To(Succeed())
		return list.Items
	}
	g.Eventually(func() []corev1.Node { return inRound("0") }).Should(HaveLen(nodes), "the cache should show the new nodes")

	// Each list comes right after a patch, before its watch event can be back: without
	// the wait, some of them miss the node just patched.
	for i := range nodes {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("read-own-writes-%02d", i)}}
		patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:"1"}}}`, label))
		g.Expect(c.Patch(ctx, node, patch)).To(Succeed())
		g.Expect(inRound("1")).To(HaveLen(i+1),
			"a list right after the manager's own patches should show them all (readYourWrites)")
	}
}

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
