package telemetry

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/rest"
)

// TracerName names the tracer of the operator's own spans.
const TracerName = "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe"

// TraceAPICalls makes every request cfg sends within a span a child span of it: the
// API calls of a reconcile pass show under the pass. A request outside any span (the
// informers' lists and watches) makes none, or every watch would be a trace of its own.
func TraceAPICalls(cfg *rest.Config) {
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return otelhttp.NewTransport(rt,
			otelhttp.WithFilter(func(r *http.Request) bool { return trace.SpanFromContext(r.Context()).SpanContext().IsValid() }),
			otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Path }),
			// The API server takes no trace context from a client it does not trust
			// with it: send none.
			otelhttp.WithPropagators(propagation.NewCompositeTextMapPropagator()))
	})
}

// EndSpan ends span, marked as failed with err when the pass that it covers returned one.
func EndSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// ExportSpansTo makes the global tracer provider write every span, once ended, to w as
// JSON, one span per object. The returned function flushes and stops it: call it
// before the process exits, or the last spans are lost.
func ExportSpansTo(w io.Writer) (func(context.Context) error, error) {
	exporter, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, fmt.Errorf("creating the span exporter: %w", err)
	}
	// A batcher, so that a pass never waits for the file.
	provider := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
	otel.SetTracerProvider(provider)
	return provider.Shutdown, nil
}
