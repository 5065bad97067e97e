// Package scale holds the tests of tasks 2 and 3, which pass, for todos' tests.
package scale

import "testing"

func TestScaleUp(t *testing.T) {}

func TestScaleUpTwice(t *testing.T) {}

func TestScaleDown(t *testing.T) {}
