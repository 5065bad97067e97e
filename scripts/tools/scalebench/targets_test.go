package main

import (
	"strings"
	"testing"
)

func TestATargetSaysWhetherItWasMet(t *testing.T) {
	met := target{figure: "node patches", got: 500, limit: 500, format: "%.0f"}
	if !met.met() || !strings.HasPrefix(met.String(), "met    node patches: 500 (target: at most 500)") {
		t.Errorf("a figure at its limit: met %v, %q", met.met(), met)
	}
	missed := target{figure: "MyDaemonSet / DaemonSet, all Running", got: 1.2, limit: 1, format: "%.2fx"}
	if missed.met() || missed.String() != "MISSED MyDaemonSet / DaemonSet, all Running: 1.20x (target: at most 1.00x)" {
		t.Errorf("a figure over its limit: met %v, %q", missed.met(), missed)
	}
	slow := target{figure: "ImoocPod / ReplicaSet, all Running", got: 1.2, limit: 1, format: "%.2fx", time: true}
	checkTimes = false
	defer func() { checkTimes = true }()
	if !slow.met() || !strings.HasPrefix(slow.String(), "(time) ") {
		t.Errorf("a time over its limit in the short form: met %v, %q; want it printed, not checked", slow.met(), slow)
	}
	checkTimes = true
	if slow.met() {
		t.Errorf("a time over its limit at full scale is met")
	}
}
