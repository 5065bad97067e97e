package securemetrics

import (
	"flag"
	"io"
	"slices"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

// A Deployment that passes no flag gets HTTPS and the filter; --metrics-secure=false
// serves the metrics as controller-runtime does by default.
func TestTheMetricsAreSecureUnlessTheFlagSaysFalse(t *testing.T) {
	for _, args := range [][]string{{}, {"--metrics-secure"}, {"--metrics-secure=true"}, {"--metrics-secure=false"}} {
		fs := flag.NewFlagSet("manager", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var opts bootstrap.Options
		BindFlag(fs, &opts, "make bench-x")
		if err := fs.Parse(args); err != nil {
			t.Fatalf("the flags %q: %v", args, err)
		}
		var o ctrl.Options
		if opts.Configure != nil {
			opts.Configure(&o)
		}
		secure := !slices.Contains(args, "--metrics-secure=false")
		if o.Metrics.SecureServing != secure {
			t.Errorf("Metrics.SecureServing is %t with the flags %q; want %t", o.Metrics.SecureServing, args, secure)
		}
		if (o.Metrics.FilterProvider != nil) != secure {
			t.Errorf("a Metrics.FilterProvider is set (%t) with the flags %q; want %t", o.Metrics.FilterProvider != nil, args, secure)
		}
	}
	var opts bootstrap.Options
	fs := flag.NewFlagSet("manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	BindFlag(fs, &opts, "make bench-x")
	if err := fs.Parse([]string{"--metrics-secure=maybe"}); err == nil {
		t.Error("--metrics-secure=maybe was taken; want an error: the flag is true or false")
	}
}
