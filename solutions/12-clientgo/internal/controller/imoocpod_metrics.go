package controller

import (
	"fmt"
	"io"
	"sync/atomic"
)

// SyncCounts counts the passes of sync by how they ended: the numbers
// controller-runtime keeps in controller_runtime_reconcile_total.
type SyncCounts struct {
	Successes    atomic.Int64
	Errors       atomic.Int64
	RequeueAfter atomic.Int64
}

// WriteMetrics writes the controller's counters in the Prometheus text format, which is
// all a scraper needs: one "name{labels} value" line per series. controller-runtime
// registers its metrics with the Prometheus client library instead; this module keeps
// to client-go and apimachinery.
func (c *Controller) WriteMetrics(w io.Writer) error {
	_, err := fmt.Fprintf(w, `# HELP workshop_sync_total Passes of sync by result: success, error (retried with backoff) or requeue_after (waiting for the cache).
# TYPE workshop_sync_total counter
workshop_sync_total{controller=%[1]q,result="success"} %[2]d
workshop_sync_total{controller=%[1]q,result="error"} %[3]d
workshop_sync_total{controller=%[1]q,result="requeue_after"} %[4]d
# HELP workshop_workqueue_depth Keys waiting in the work queue.
# TYPE workshop_workqueue_depth gauge
workshop_workqueue_depth{controller=%[1]q} %[5]d
`, Name, c.Syncs.Successes.Load(), c.Syncs.Errors.Load(), c.Syncs.RequeueAfter.Load(), c.queue.Len())
	return err
}
