package testenv

import (
	"context"
	"sync"

	"github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WarningRecorder keeps the warnings the API server sends with its answers, the lines
// kubectl prints as "Warning: ...": a webhook's admission warnings among them.
type WarningRecorder struct {
	mu       sync.Mutex
	warnings []string
}

// HandleWarningHeaderWithContext records one warning; client-go calls it for each
// warning of an answer (rest.WarningHandlerWithContext).
func (r *WarningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warnings = append(r.warnings, text)
}

// Take returns the warnings received since the last call, in order; nil when there
// were none.
func (r *WarningRecorder) Take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.warnings
	r.warnings = nil
	return w
}

// ClientWithWarnings returns a client of the API server, like Client, that records
// the API server's warnings in the recorder it returns instead of logging them. g
// reports, at the caller's line, the error of a client that cannot be built.
func (e *Env) ClientWithWarnings(g gomega.Gomega) (client.Client, *WarningRecorder) {
	recorder := &WarningRecorder{}
	cfg := rest.CopyConfig(e.Config())
	cfg.WarningHandlerWithContext = recorder
	c, err := client.New(cfg, client.Options{Scheme: e.Client().Scheme(), Mapper: e.Client().RESTMapper()})
	g.ExpectWithOffset(1, err).NotTo(gomega.HaveOccurred())
	return c, recorder
}
