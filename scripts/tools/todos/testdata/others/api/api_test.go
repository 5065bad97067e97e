// Package api holds task 1's test, which fails when TODOS_TEST_TASK_FAILS is set, for
// todos' tests.
package api

import (
	"os"
	"testing"
)

func TestAPI(t *testing.T) {
	if os.Getenv("TODOS_TEST_TASK_FAILS") != "" {
		t.Error("the API should validate the replica count")
	}
}
