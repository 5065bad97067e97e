// Package securemetrics serves a manager's metrics as a deployed manager should: over
// HTTPS, and only to whoever the API server says may read them. It is a package of its
// own because its filter brings k8s.io/apiserver into the managers that import it.
package securemetrics

import (
	"flag"
	"strconv"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
)

// Serve serves /metrics over HTTPS to whoever the API server says may read it,
// as lesson 09's NodePool manager and kubebuilder's scaffold do: the filter checks the
// caller's bearer token with a TokenReview, then asks a SubjectAccessReview whether that
// user may get the URL /metrics (a track's config/rbac/metrics_reader_role.yaml grants
// it). The manager's role must let it create both reviews: two RBAC markers in the
// track's cmd say so. Without a certificate folder controller-runtime serves a
// self-signed certificate, made at start.
func Serve(o *ctrl.Options) {
	o.Metrics.SecureServing = true
	o.Metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
}

// BindFlag makes Serve how the manager of opts serves its metrics, and registers
// --metrics-secure on fs: false serves them in plain HTTP instead, for a manager on this
// machine only, whose memory bench (a make target, "make bench-sidecarset") reads so.
func BindFlag(fs *flag.FlagSet, opts *bootstrap.Options, bench string) {
	opts.Configure = Serve
	fs.BoolFunc("metrics-secure",
		"Serve the metrics over HTTPS, to callers the API server allows to get /metrics (the default); "+
			"false serves plain HTTP, for a manager on this machine only ("+bench+" reads its memory so).",
		func(value string) error {
			secure, err := strconv.ParseBool(value)
			if err != nil {
				return err
			}
			opts.Configure = nil
			if secure {
				opts.Configure = Serve
			}
			return nil
		})
}
