package testenv

import (
	"context"
	"fmt"
	"strings"

	"github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FailingDeletes is a client whose deletes a policy webhook refuses, each with a message
// of about a kilobyte. Give it to a reconciler of the test's own to show what a pass
// reports when many of its deletes fail.
type FailingDeletes struct {
	client.Client
}

// Delete refuses obj, as the webhook would.
func (f *FailingDeletes) Delete(_ context.Context, obj client.Object, _ ...client.DeleteOption) error {
	return fmt.Errorf(`pods %q is forbidden: admission webhook "protect.policy.example.com" denied the request: %s`,
		obj.GetName(), strings.Repeat("this pod is protected by the team's disruption policy; ", 20))
}

// ExpectRefusedDeletesReported expects what a pass whose n deletes FailingDeletes refused
// returned (err) and wrote in its Ready condition (ready, as the API server holds it).
// The API server refuses a condition whose message exceeds 32 KiB, and a refused status
// patch leaves the status as the pass before wrote it, just when it is wrong: the
// message must count the failures and show the first, not join them all.
func ExpectRefusedDeletesReported(g gomega.Gomega, err error, ready metav1.Condition, n int) {
	g.ExpectWithOffset(1, err).To(gomega.MatchError(gomega.ContainSubstring("denied the request")),
		"a pass whose deletes fail should return their error")
	g.ExpectWithOffset(1, ready).To(HaveStatusAndReason(metav1.ConditionFalse, "ReconcileError"),
		"the Ready condition after a pass whose %d deletes failed: if it does not say ReconcileError, the API "+
			"server refused the status patch, whose message may not exceed 32 KiB (the pass's error: %.300s...)",
		n, ErrorText(err))
	g.ExpectWithOffset(1, ready.Message).To(gomega.ContainSubstring(fmt.Sprintf("%d of %d failed; first: ", n, n)),
		"the message should count the failures and show the first")
	g.ExpectWithOffset(1, len(ready.Message)).To(gomega.BeNumerically("<", 2048),
		"the message of %d failures should be about as long as one's", n)
}
