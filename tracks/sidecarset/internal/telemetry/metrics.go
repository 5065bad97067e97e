// Package telemetry holds what the SidecarSet operator tells about itself beyond
// controller-runtime's own metrics: its metrics, in the manager's registry, and its
// traces (see docs/lesson-17.md).
package telemetry

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The outcomes of the pod webhook's answer to one pod creation: a closed list, so that
// the admissions metric has as many series as there are outcomes, whatever the cluster.
const (
	// OutcomeInjected: the answer added sidecars.
	OutcomeInjected = "injected"
	// OutcomeNotSelected: it added none, as no SidecarSet selects the pod or the pod
	// runs their sidecars already.
	OutcomeNotSelected = "not_selected"
	// OutcomeLookupFailed: the SidecarSets could not be read; the pod went in without.
	OutcomeLookupFailed = "lookup_failed"
)

//lesson:17.1
//lesson:stub var admissions = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sidecarset_webhook_pods_total"}, []string{"outcome"})
//lesson:stub var injectionDuration = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sidecarset_webhook_injection_duration_seconds"})
//lesson:stub var passes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sidecarset_reconcile_passes_total"}, []string{"reason"})
var (
	admissions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sidecarset_webhook_pods_total",
		Help: "Pod creations the SidecarSet pod webhook answered, by outcome: injected, not_selected or lookup_failed.",
	}, []string{"outcome"})

	// The webhook answers in about a millisecond from the cache: the default buckets
	// (5 ms to 10 s) would put every answer in the first one.
	injectionDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "sidecarset_webhook_injection_duration_seconds",
		Help:    "The time the SidecarSet pod webhook took to answer a pod creation, in seconds.",
		Buckets: prometheus.ExponentialBuckets(0.00025, 2, 14), // 0.25 ms to about 2 s
	})

	// The reason of the Injected condition a pass leaves, never the SidecarSet's
	// name: a label per object would make a series per SidecarSet.
	passes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "sidecarset_reconcile_passes_total",
		Help: "SidecarSet reconcile passes, by the reason of the Injected condition each left.",
	}, []string{"reason"})
)

//lesson:end

// The metrics join controller-runtime's registry, which the manager serves on /metrics
// next to its own: no second endpoint to secure.
func init() {
	metrics.Registry.MustRegister(admissions, injectionDuration, passes)
}

// ObserveAdmission records one answer of the pod webhook: its outcome and how long it
// took since start.
func ObserveAdmission(outcome string, start time.Time) {
	admissions.WithLabelValues(outcome).Inc()
	injectionDuration.Observe(time.Since(start).Seconds())
}

// CountPass records one reconcile pass of the SidecarSet named name, by reason, the
// reason of the Injected condition it left.
func CountPass(name, reason string) {
	//lesson:17.1 count
	//lesson:stub _ = name
	passes.WithLabelValues(reason).Inc()
	//lesson:end
}
