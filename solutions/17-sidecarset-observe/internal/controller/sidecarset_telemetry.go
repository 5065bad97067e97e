package controller

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/api/meta"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/api/sidecars/v1"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/telemetry"
)

// tracer returns the tracer of r's spans: r.Tracer, or the global provider's.
func (r *SidecarSetReconciler) tracer() trace.Tracer {
	if r.Tracer != nil {
		return r.Tracer
	}
	return otel.Tracer(telemetry.TracerName)
}

// injectedReason is the reason of set's Injected condition, the outcome of the pass that
// set it: one of a handful (sidecarsv1.ReasonAllPodsInjected, ...), a label of bounded
// cardinality.
func injectedReason(set *sidecarsv1.SidecarSet) string {
	if c := meta.FindStatusCondition(set.Status.Conditions, sidecarsv1.ConditionInjected); c != nil {
		return c.Reason
	}
	return "Unknown"
}
