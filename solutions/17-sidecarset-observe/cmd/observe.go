package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kube-workshop/operator-workshop/shared/bootstrap"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/telemetry"
)

// configure makes the manager of opts serve Go's profiles at --pprof-bind-address, after
// whatever opts.Configure already does (how --metrics-secure serves the metrics), and
// with --trim-pods=false cache whole pods.
func (f flags) configure(opts *bootstrap.Options) {
	if !f.trimPods {
		opts.Cache = cache.Options{}
	}
	configure := opts.Configure
	opts.Configure = func(o *ctrl.Options) {
		if configure != nil {
			configure(o)
		}
		o.PprofBindAddress = f.pprofAddr
	}
}

// startTracing writes the spans of the reconcile passes to --trace-file, when it is set,
// and returns what flushes them and closes the file.
func (f flags) startTracing() (func(), error) {
	if f.traceFile == "" {
		return func() {}, nil
	}
	file, err := os.Create(f.traceFile)
	if err != nil {
		return nil, fmt.Errorf("--trace-file: %w", err)
	}
	shutdown, err := telemetry.ExportSpansTo(file)
	if err != nil {
		_ = file.Close()
		return nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "Flushing the spans to %s: %v\n", f.traceFile, err)
		}
		_ = file.Close()
	}, nil
}

// tracedClients returns clients like the manager's, whose requests to the API server go
// through a traced transport (telemetry.TraceAPICalls): one that reads from the
// manager's cache and writes to the API server, and one that reads from the API server.
func tracedClients(mgr ctrl.Manager) (client.Client, client.Reader, error) {
	cfg := rest.CopyConfig(mgr.GetConfig())
	telemetry.TraceAPICalls(cfg)
	opts := client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}
	reader, err := client.New(cfg, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the traced API reader: %w", err)
	}
	opts.Cache = &client.CacheOptions{Reader: mgr.GetCache()}
	cached, err := client.New(cfg, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the traced client: %w", err)
	}
	return cached, reader, nil
}
