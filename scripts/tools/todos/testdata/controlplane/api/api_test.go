// Package api fails once the other package's control plane runs, for todos' tests: its
// task is the first not done, and todos stops go test while that control plane runs.
package api

import (
	"os"
	"testing"
	"time"
)

func TestAPI(t *testing.T) {
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if b, _ := os.ReadFile(os.Getenv("TODOS_TEST_CONTROL_PLANE")); len(b) > 0 {
			break
		}
	}
	t.Error("the API should validate the replica count")
}
