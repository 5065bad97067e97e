package controller

import (
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/kube-workshop/operator-workshop/shared/securemetrics"
)

// sample returns the value of the series of the family name whose labels include
// labels (a counter's value, a histogram's count), or 0 when there is none yet.
func sample(g Gomega, text, name string, labels map[string]string) float64 {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(text))
	g.ExpectWithOffset(1, err).NotTo(HaveOccurred())
	total := 0.0
	for _, m := range families[name].GetMetric() {
		if matches(m, labels) {
			total += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

func matches(m *dto.Metric, labels map[string]string) bool {
	found := 0
	for _, l := range m.GetLabel() {
		if v, ok := labels[l.GetName()]; ok && v == l.GetValue() {
			found++
		}
	}
	return found == len(labels)
}

// What a scraper allowed to read /metrics sees, through the secured endpoint a deployed
// manager serves: each pod the webhook injected, counted by outcome, and timed; each
// pass, counted by the reason it left in Injected.
func TestTheSecuredEndpointServesTheSidecarSetMetrics(t *testing.T) {
	g := NewWithT(t)
	scraper := env.NewMetricsScraper(t, securemetrics.Serve, filepath.Join("..", "..", "config", "rbac", "metrics_reader_role.yaml"))
	before := scraper.Scrape(t)

	value := newCase("metrics")
	set := createSidecarSet(t, g, value, "busybox:1.37")
	createPods(g, env.Namespace(t), "web", value, 2)
	eventuallyCounts(g, set, counts{Matched: 2, Injected: 2})

	g.Eventually(func(g Gomega) {
		after := scraper.Scrape(t)
		injected := map[string]string{"outcome": "injected"}
		g.Expect(sample(g, after, "sidecarset_webhook_pods_total", injected)-sample(g, before, "sidecarset_webhook_pods_total", injected)).
			To(BeNumerically(">=", 2), "sidecarset_webhook_pods_total{outcome=\"injected\"} should count each pod the webhook injected: "+
				"Handle records its outcome (telemetry.ObserveAdmission)")
		g.Expect(sample(g, after, "sidecarset_webhook_injection_duration_seconds", nil)-sample(g, before, "sidecarset_webhook_injection_duration_seconds", nil)).
			To(BeNumerically(">=", 2), "sidecarset_webhook_injection_duration_seconds should time each answer of the webhook")
		all := map[string]string{"reason": "AllPodsInjected"}
		g.Expect(sample(g, after, "sidecarset_reconcile_passes_total", all)-sample(g, before, "sidecarset_reconcile_passes_total", all)).
			To(BeNumerically(">=", 1), "sidecarset_reconcile_passes_total{reason=\"AllPodsInjected\"} should count the pass that found "+
				"both pods injected: each pass counts itself when it ends (telemetry.CountPass)")
	}).Should(Succeed())
}
