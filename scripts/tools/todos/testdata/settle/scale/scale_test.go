// Package scale holds task 2's tests, the first of which fails at once, for todos' tests.
package scale

import "testing"

func TestScaleUp(t *testing.T) { t.Error("the ImoocPod should have 3 pods") }

func TestScaleUpTwice(t *testing.T) {}
