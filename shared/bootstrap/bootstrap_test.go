package bootstrap

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
)

// A manager started by hand serves its metrics and probes to its own machine only: on a
// laptop, a cloud IDE or a shared host, anyone who reaches the machine's address would
// otherwise read them.
func TestTheEndpointsListenOnLoopbackByDefault(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	for flagName, addr := range map[string]string{
		"--metrics-bind-address": o.MetricsAddr, "--health-probe-bind-address": o.ProbeAddr,
	} {
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("%s defaults to %q; want 127.0.0.1:<port>, the loopback interface only", flagName, addr)
		}
	}
}

// A stage whose writes come in bigger bursts than the others' sets its own client limits
// before BindFlags: they become its flags' defaults, which the command line still
// overrides. A stage that sets none keeps the workshop's.
func TestAStageMaySetItsOwnClientLimits(t *testing.T) {
	cases := []struct {
		name  string
		stage Options
		args  []string
		qps   float64
		burst int
	}{
		{"no limits of its own", Options{}, nil, DefaultKubeAPIQPS, DefaultKubeAPIBurst},
		{"its own limits", Options{KubeAPIQPS: 300, KubeAPIBurst: 600}, nil, 300, 600},
		{"its own limits, overridden", Options{KubeAPIQPS: 300, KubeAPIBurst: 600},
			[]string{"--kube-api-qps=20", "--kube-api-burst=30"}, 20, 30},
	}
	for _, c := range cases {
		o := c.stage
		fs := flag.NewFlagSet("manager", flag.ContinueOnError)
		o.BindFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if o.KubeAPIQPS != c.qps || o.KubeAPIBurst != c.burst {
			t.Errorf("%s: --kube-api-qps %v, --kube-api-burst %d; want %v and %d",
				c.name, o.KubeAPIQPS, o.KubeAPIBurst, c.qps, c.burst)
		}
	}
}

// Outside a pod, --leader-elect without a namespace cannot work: Run says which flag is
// missing before it reads a kubeconfig or creates a manager.
func TestLeaderElectionOutsideAPodNeedsANamespace(t *testing.T) {
	if _, err := os.Stat(serviceAccountNamespaceFile); err == nil {
		t.Skipf("%s exists: this test runs in a pod", serviceAccountNamespaceFile)
	}
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	err := Run(Options{Name: "test", LeaderElect: true}, runtime.NewScheme(),
		func(ctrl.Manager) error { t.Fatal("setup ran"); return nil })
	if err == nil || !strings.Contains(err.Error(), "--leader-election-namespace") {
		t.Fatalf("Run with --leader-elect and no namespace outside a pod: got %v, want an error naming "+
			"--leader-election-namespace", err)
	}
}

func TestCheckLeaderElection(t *testing.T) {
	inPod := filepath.Join(t.TempDir(), "namespace")
	if err := os.WriteFile(inPod, []byte("workshop-system"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "namespace")
	cases := []struct {
		name    string
		opts    Options
		file    string
		wantErr bool
	}{
		{"no leader election", Options{}, outside, false},
		{"a namespace given, outside a pod", Options{LeaderElect: true, LeaderElectionNS: "default"}, outside, false},
		{"no namespace, in a pod: its own", Options{LeaderElect: true}, inPod, false},
		{"no namespace, outside a pod", Options{LeaderElect: true}, outside, true},
	}
	for _, c := range cases {
		err := checkLeaderElection(c.opts, c.file)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: got error %v, want an error: %v", c.name, err, c.wantErr)
		}
	}
}
