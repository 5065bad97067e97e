// Package scale holds the later tasks' tests, for todos' tests: task 3's is slow, and go
// test is stopped before it ends.
package scale

import (
	"testing"
	"time"
)

func TestScaleUp(t *testing.T) {}

func TestScaleUpTwice(t *testing.T) {}

func TestScaleDown(t *testing.T) { time.Sleep(30 * time.Second) }
