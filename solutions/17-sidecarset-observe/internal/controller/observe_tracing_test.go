package controller

import (
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/sidecars"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/telemetry"
)

// A pass is one span, ended whatever the pass returned, named for the SidecarSet it
// reconciled; every API call it made is a child of it. The test runs a pass of its own,
// with a client whose requests go through the traced transport, and keeps the spans in
// memory: the spans ended (the exporter) and the spans started (the recorder).
func TestEachPassIsASpanWithItsAPICallsAsChildren(t *testing.T) {
	g := NewWithT(t)
	exporter := tracetest.NewInMemoryExporter()
	started := tracetest.NewSpanRecorder()
	provider := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter), sdktrace.WithSpanProcessor(started))
	t.Cleanup(func() { _ = provider.Shutdown(env.Context()) })

	cfg := rest.CopyConfig(env.Config())
	telemetry.TraceAPICalls(cfg)
	traced, err := client.New(cfg, client.Options{Scheme: env.Client().Scheme()})
	g.Expect(err).NotTo(HaveOccurred())
	r := &SidecarSetReconciler{
		Client: traced, APIReader: traced, Scheme: traced.Scheme(),
		// No channel: the events of this pass are dropped.
		Recorder:           &events.FakeRecorder{},
		ExcludedNamespaces: sidecars.ExcludedNamespaces(sidecars.DefaultManagerNamespace),
		Tracer:             provider.Tracer(telemetry.TracerName),
	}

	set := createSidecarSet(t, g, newCase("traced"), "busybox:1.37")
	_, err = r.Reconcile(env.Context(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(set)})
	g.Expect(err).NotTo(HaveOccurred())

	isPass := func(s sdktrace.ReadOnlySpan) bool {
		return slices.Contains(s.Attributes(), attribute.String("sidecarset.name", set.Name))
	}
	g.Expect(slices.ContainsFunc(started.Started(), func(s sdktrace.ReadWriteSpan) bool { return isPass(s) })).To(BeTrue(),
		"a pass should start a span with the attribute sidecarset.name=%s (the request's name): r.tracer().Start", set.Name)
	spans := exporter.GetSpans().Snapshots()
	i := slices.IndexFunc(spans, isPass)
	g.Expect(i).NotTo(Equal(-1),
		"the pass's span was started but never ended: a span never ended is never exported; end it in a defer, "+
			"on every return (telemetry.EndSpan)")
	pass := spans[i]
	g.Expect(pass.Parent().IsValid()).To(BeFalse(), "the pass's span should be the root of its trace")

	var calls []string
	for _, s := range spans {
		if s.Parent().SpanID() == pass.SpanContext().SpanID() {
			calls = append(calls, s.Name())
		}
	}
	// The manager's own controller has written the status already: this pass reads, and
	// patches nothing.
	g.Expect(calls).To(ContainElement("GET /apis/sidecars.workshop.dev/v1/sidecarsets/"+set.Name),
		"the pass's API calls should be its children: make them with the context Start returned")
	g.Expect(calls).To(ContainElement("GET /api/v1/pods"), "the pass's list of pods should be a child of the pass")
}
