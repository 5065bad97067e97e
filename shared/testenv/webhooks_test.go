package testenv

import (
	"flag"
	"testing"

	. "github.com/onsi/gomega"
)

func TestFuzzingFollowsTheFuzzFlag(t *testing.T) {
	g := NewWithT(t)
	fuzz := flag.Lookup("test.fuzz")
	g.Expect(fuzz).NotTo(BeNil(), "a test binary has the flag -test.fuzz")
	g.Expect(Fuzzing()).To(BeFalse(), "go test without -fuzz")

	before := fuzz.Value.String()
	t.Cleanup(func() { _ = fuzz.Value.Set(before) })
	g.Expect(fuzz.Value.Set("^FuzzValidate$")).To(Succeed())
	g.Expect(Fuzzing()).To(BeTrue(), "go test -fuzz '^FuzzValidate$'")
}

// While fuzzing RunWebhooks leaves the package's Env nil: a test that needs the API
// server must skip rather than fail on a nil pointer.
func TestWaitForWebhooksSkipsWithoutAnAPIServer(t *testing.T) {
	var env *Env
	var inner *testing.T
	t.Run("needs the API server", func(t *testing.T) {
		inner = t
		env.WaitForWebhooks(t)
		t.Error("WaitForWebhooks returned on a nil Env")
	})
	if !inner.Skipped() {
		t.Errorf("the test that needs the API server was not skipped")
	}
}
