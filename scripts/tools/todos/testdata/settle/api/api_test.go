// Package api holds task 1's test, which passes after a while, and a slow test of no task
// after it, for todos' tests: go test is stopped before the slow one ends.
package api

import (
	"testing"
	"time"
)

func TestAPI(t *testing.T) { time.Sleep(3 * time.Second) }

func TestOfNoTask(t *testing.T) { time.Sleep(30 * time.Second) }
