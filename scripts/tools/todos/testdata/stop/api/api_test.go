// Package api fails after a while, for todos' tests: its task is the first not done, and
// the other package's test runs meanwhile.
package api

import (
	"testing"
	"time"
)

func TestAPI(t *testing.T) {
	time.Sleep(3 * time.Second)
	t.Error("the API should validate the replica count")
}
