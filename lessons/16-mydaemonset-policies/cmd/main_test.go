package main

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/api/apps/v1"
	"github.com/kube-workshop/operator-workshop/lessons/16-mydaemonset-policies/internal/controller"
	"github.com/kube-workshop/operator-workshop/shared/securemetrics"
	"github.com/kube-workshop/operator-workshop/shared/testenv"
)

var (
	env *testenv.Env
	// readyChecks are the ready checks setup added, by name. The manager serves them on
	// /readyz, which the test manager does not listen on.
	readyChecks = map[string]healthz.Checker{}
)

// TestMain starts an API server with the module's CRD and webhook configurations, and a
// manager set up by setup, the function main hands to bootstrap.Run.
func TestMain(m *testing.M) {
	os.Exit(testenv.Run(m, testenv.Options{
		Scheme:       testenv.Scheme(appsv1.AddToScheme),
		WebhookPaths: []string{filepath.Join("..", "config", "webhook")},
		Cache:        controller.CacheOptions(),
		Setup: func(mgr ctrl.Manager) error {
			return setup(&checkRecorder{Manager: mgr}, 1)
		},
	}, &env))
}

// checkRecorder is the manager, remembering the ready checks added to it.
type checkRecorder struct{ ctrl.Manager }

func (m *checkRecorder) AddReadyzCheck(name string, check healthz.Checker) error {
	readyChecks[name] = check
	return m.Manager.AddReadyzCheck(name, check)
}

// The API server calls the webhooks of a deployed manager as soon as their configurations
// exist, and refuses every MyDaemonSet while they do not answer: the manager must serve
// them, and say it is ready only once it does. Whatever the webhooks decide, a valid
// MyDaemonSet is admitted only when both answered.
func TestTheManagerServesItsWebhooksOnceReady(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	g.Expect(readyChecks).To(HaveKey("webhook"), "setup should add a ready check named \"webhook\"")
	g.Eventually(func() error { return readyChecks["webhook"](nil) }).Should(Succeed(),
		"the ready check \"webhook\" should pass once the webhook server answers")

	mds := &appsv1.MyDaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: env.Namespace(t), Name: "demo"},
		Spec:       appsv1.MyDaemonSetSpec{Image: "registry.k8s.io/pause:3.10"},
	}
	g.Expect(env.Client().Create(ctx, mds)).To(Succeed(),
		"the API server calls the manager's webhooks for every MyDaemonSet: setup should register them")
}

// A deployed manager serves its metrics to the whole cluster network.
// securemetrics.Serve, which main installs unless --metrics-secure=false, serves them
// over HTTPS only, and only to a caller the API server authenticates and allows to get
// /metrics, as the ClusterRole of config/rbac/metrics_reader_role.yaml does once bound to
// a scraper.
func TestTheMetricsAreServedOnlyToWhoMayReadThem(t *testing.T) {
	env.ExpectMetricsOnlyForReaders(t, securemetrics.Serve, filepath.Join("..", "config", "rbac", "metrics_reader_role.yaml"))
}

// The metrics filter asks the API server about every scraper, with the manager's own
// identity: the role controller-gen writes from the RBAC markers (config/rbac/role.yaml)
// must let it, or a deployed manager answers every scrape with an error.
func TestTheManagersRoleAllowsTheMetricsFilter(t *testing.T) {
	env.ExpectRoleAllowsMetricsFilter(t, filepath.Join("..", "config", "rbac", "role.yaml"))
}

// With --leader-elect, the manager records each change of leader as an Event of its
// Lease, through the core API group, in the Lease's namespace (the manager's own, when
// deployed). Those are the only events MyDaemonSet's manager records: its controller
// records none, so config/rbac/role.yaml grants no events, and
// config/rbac/leader_election_role.yaml grants them in that namespace only.
func TestTheLeaderElectionRoleLetsTheManagerRecordItsLeadership(t *testing.T) {
	g := NewWithT(t)
	ctx := env.Context()
	ns := env.Namespace(t)
	role := &rbacv1.Role{}
	g.Expect(testenv.ReadManifest(filepath.Join("..", "config", "rbac", "leader_election_role.yaml"), role)).To(Succeed())
	role.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: "leader-election"}
	g.Expect(env.Client().Create(ctx, role)).To(Succeed())
	user := "leader-of-" + ns
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	g.Expect(env.Client().Create(ctx, binding)).To(Succeed())
	// The API server's authorizer learns of a new binding through its own cache.
	g.Eventually(func(g Gomega) {
		review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user,
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: ns, Verb: "create", Group: "coordination.k8s.io", Resource: "leases",
			},
		}}
		g.Expect(env.Client().Create(ctx, review)).To(Succeed())
		g.Expect(review.Status.Allowed).To(BeTrue(), "the authorizer knows the new binding")
	}).Should(Succeed())

	cfg := rest.CopyConfig(env.Config())
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user}
	env.StartManager(t, cfg, ctrl.Options{
		Scheme:                  env.Scheme(),
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          true,
		LeaderElectionID:        "mydaemonset.workshop.dev",
		LeaderElectionNamespace: ns,
		// As bootstrap.Run does: a manager that stops hands the lease over at once.
		LeaderElectionReleaseOnCancel: true,
	})
	g.Eventually(func(g Gomega) {
		var events corev1.EventList
		g.Expect(env.Client().List(ctx, &events, client.InNamespace(ns))).To(Succeed())
		g.Expect(events.Items).To(ContainElement(And(
			HaveField("Reason", "LeaderElection"),
			HaveField("InvolvedObject.Kind", "Lease"),
			HaveField("Message", ContainSubstring("became leader")),
		)))
	}).Should(Succeed(), "the manager should record that it became leader: config/rbac/leader_election_role.yaml "+
		"should let it create and patch events (core group) in the Lease's namespace")
}
