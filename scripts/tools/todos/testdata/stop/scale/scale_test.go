// Package scale holds a later task's slow test, for todos' tests: go test is stopped
// before it ends.
package scale

import (
	"testing"
	"time"
)

func TestScaleDown(t *testing.T) { time.Sleep(30 * time.Second) }
