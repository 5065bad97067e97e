package main

import (
	"flag"
	"strconv"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

// The manager's own permissions, beyond its controller's and webhooks' (internal/): the
// metrics endpoint's filter (secureMetrics) asks the API server who a scraper is and
// whether it may read /metrics. controller-gen writes them into config/rbac/role.yaml.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// serveMetricsSecurely has the manager serve its metrics as secureMetrics says, unless
// --metrics-secure=false, which it binds on fs: deployed, the manager serves them to the
// whole cluster network, on every interface.
func serveMetricsSecurely(fs *flag.FlagSet, opts *bootstrap.Options) {
	opts.Configure = secureMetrics
	fs.BoolFunc("metrics-secure",
		"Serve the metrics over HTTPS, to callers the API server allows to get /metrics (the default); "+
			"false serves plain HTTP, for a manager on this machine only (make bench-sidecarset reads its memory so).",
		func(value string) error {
			secure, err := strconv.ParseBool(value)
			if err != nil {
				return err
			}
			opts.Configure = nil
			if secure {
				opts.Configure = secureMetrics
			}
			return nil
		})
}

// secureMetrics serves /metrics over HTTPS to whoever the API server says may read it,
// as lesson 09's NodePool manager and kubebuilder's scaffold do: the filter checks the
// caller's bearer token with a TokenReview, then asks a SubjectAccessReview whether that
// user may get the URL /metrics (config/rbac/metrics_reader_role.yaml grants it). Without
// a certificate folder controller-runtime serves a self-signed certificate, made at start.
func secureMetrics(o *ctrl.Options) {
	o.Metrics.SecureServing = true
	o.Metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
}
