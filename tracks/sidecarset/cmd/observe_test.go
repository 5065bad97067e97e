package main

import (
	"flag"
	"testing"

	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	"github.com/kube-workshop/operator-workshop/shared/securemetrics"
	"github.com/kube-workshop/operator-workshop/tracks/sidecarset/internal/controller"
)

// --pprof-bind-address reaches the manager's options without undoing how
// --metrics-secure serves the metrics; --trim-pods=false drops TrimPod, and only it.
func TestTheObservingFlagsReachTheManagersOptions(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		pprof         string
		secure, trims bool
	}{
		{args: nil, pprof: "", secure: true, trims: true},
		{args: []string{"--pprof-bind-address=127.0.0.1:8082"}, pprof: "127.0.0.1:8082", secure: true, trims: true},
		{args: []string{"--metrics-secure=false", "--pprof-bind-address=127.0.0.1:8082", "--trim-pods=false"},
			pprof: "127.0.0.1:8082", secure: false, trims: false},
	} {
		g := NewWithT(t)
		fs := flag.NewFlagSet("manager", flag.ContinueOnError)
		opts := bootstrap.Options{Name: "sidecarset", Cache: controller.CacheOptions()}
		securemetrics.BindFlag(fs, &opts, "make bench-sidecarset")
		var f flags
		f.bind(fs, "/nonexistent")
		g.Expect(fs.Parse(tc.args)).To(Succeed())
		f.configure(&opts)

		var o ctrl.Options
		opts.Configure(&o)
		g.Expect(o.PprofBindAddress).To(Equal(tc.pprof), "with %q, the manager's PprofBindAddress", tc.args)
		g.Expect(o.Metrics.SecureServing).To(Equal(tc.secure), "with %q, --pprof-bind-address must keep how --metrics-secure serves the metrics", tc.args)
		g.Expect(opts.Cache.ByObject != nil).To(Equal(tc.trims), "with %q, the pods' cache runs TrimPod only without --trim-pods=false", tc.args)
	}
}
