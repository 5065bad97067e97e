package telemetry

import (
	"fmt"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// gather returns the metric families of controller-runtime's registry, by name.
func gather(g Gomega) map[string]*dto.MetricFamily {
	families, err := metrics.Registry.Gather()
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
	byName := map[string]*dto.MetricFamily{}
	for _, f := range families {
		byName[f.GetName()] = f
	}
	return byName
}

// labelNames returns the names of a series' labels.
func labelNames(m *dto.Metric) []string {
	var names []string
	for _, l := range m.GetLabel() {
		names = append(names, l.GetName())
	}
	return names
}

// The operator's metrics are in the registry the manager serves, each with a help text;
// a pass is counted by a reason among a handful, so that a thousand SidecarSets make no
// more series than one; and the webhook's latency, about a millisecond, falls in buckets
// that tell a millisecond from ten.
func TestTheMetricsHaveHelpTextsBoundedLabelsAndMillisecondBuckets(t *testing.T) {
	g := NewWithT(t)
	reasons := []string{"NoMatchingPods", "AllPodsInjected", "PodsNotInjected", "ReconcileError"}
	for i := range 50 {
		CountPass(fmt.Sprintf("set-%d", i), reasons[i%len(reasons)])
	}
	ObserveAdmission(OutcomeInjected, time.Now().Add(-2*time.Millisecond))
	ObserveAdmission(OutcomeNotSelected, time.Now())

	families := gather(g)
	for _, name := range []string{"sidecarset_webhook_pods_total", "sidecarset_webhook_injection_duration_seconds",
		"sidecarset_reconcile_passes_total"} {
		g.Expect(families).To(HaveKey(name), "%s should be registered in metrics.Registry, which the manager serves", name)
		g.Expect(families[name].GetHelp()).NotTo(BeEmpty(),
			"%s should have a help text: Prometheus and its users read what a metric means there", name)
	}

	passes := families["sidecarset_reconcile_passes_total"]
	g.Expect(len(passes.GetMetric())).To(BeNumerically("<=", len(reasons)),
		"sidecarset_reconcile_passes_total has %d series for 50 SidecarSets: a label per object name (unbounded "+
			"cardinality) makes one series per SidecarSet, and the scraper's memory grows with the cluster; "+
			"label by reason only", len(passes.GetMetric()))
	for _, m := range passes.GetMetric() {
		g.Expect(labelNames(m)).To(Equal([]string{"reason"}),
			"sidecarset_reconcile_passes_total should have the label reason only: a label per object name (unbounded cardinality)")
	}
	for _, m := range families["sidecarset_webhook_pods_total"].GetMetric() {
		g.Expect(labelNames(m)).To(Equal([]string{"outcome"}), "sidecarset_webhook_pods_total should have the label outcome only")
	}

	var bounds []float64
	for _, b := range families["sidecarset_webhook_injection_duration_seconds"].GetMetric()[0].GetHistogram().GetBucket() {
		bounds = append(bounds, b.GetUpperBound())
	}
	below10ms := slices.IndexFunc(bounds, func(b float64) bool { return b > 0.01 })
	g.Expect(bounds).NotTo(BeEmpty())
	g.Expect(bounds[0]).To(BeNumerically("<=", 0.001),
		"the injection latency needs buckets fit for milliseconds: the first is %gs, so a 1 ms answer and a 5 ms one "+
			"fall in the same bucket (the default buckets start at 5 ms)", bounds[0])
	g.Expect(below10ms).To(BeNumerically(">=", 4),
		"the injection latency needs buckets fit for milliseconds: at least four up to 10 ms, found %v", bounds)
}
