package scripts

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// What kubectl apply of lesson 01's CRD printed on the embedded cluster after lesson 13's
// CRD and its storage migration (storedVersions ["v2"]).
const storedVersionsRefusal = `The CustomResourceDefinition "imoocpods.apps.workshop.dev" is invalid: status.storedVersions[0]: Invalid value: "v2": missing from spec.versions; v2 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v2 and removes v2 from status.storedVersions`

// applyCRDs runs apply_crds with a kubectl whose apply fails with refusal, and returns
// what it printed.
func applyCRDs(t *testing.T, refusal string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	writeCommand(t, dir, "kubectl", `[[ $1 == apply ]] || exit 0
echo '`+refusal+`' >&2
exit 1
`)
	return runWithCommandsOf(dir, `source ../../../lib/common.sh && apply_crds "$ROOT/solutions/01-imoocpod/config/crd/bases"`)
}

// A CRD that stored a version the lesson's CRD lacks is refused by the API server; the
// install says what that is, the command that clears it, and the entry that explains it.
func TestApplyCRDsSaysWhatAStoredVersionRefusalIsAndHowToClearIt(t *testing.T) {
	out, err := applyCRDs(t, storedVersionsRefusal)
	if err == nil {
		t.Fatalf("apply_crds succeeded on a refused apply:\n%s", out)
	}
	for _, want := range []string{
		storedVersionsRefusal,
		"installing the CRDs of solutions/01-imoocpod/config/crd/bases failed",
		"has stored objects in v2 (its status.storedVersions)",
		"`kubectl delete crd imoocpods.apps.workshop.dev` clears it",
		"shared/TROUBLESHOOTING.md, entry 20",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apply_crds on a refusal for status.storedVersions: want %q in its output, got:\n%s", want, out)
		}
	}
	doc, err := os.ReadFile("../../../../shared/TROUBLESHOOTING.md")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^## 20\. .*storedVersions`).Match(doc) {
		t.Errorf("apply_crds names shared/TROUBLESHOOTING.md, entry 20: it should be the one about status.storedVersions")
	}
}

// Any other refusal is shown as kubectl said it, with no explanation that does not fit.
func TestApplyCRDsShowsAnotherRefusalAsItIs(t *testing.T) {
	refusal := `The CustomResourceDefinition "imoocpods.apps.workshop.dev" is invalid: spec.versions: Invalid value: ...`
	out, err := applyCRDs(t, refusal)
	if err == nil || !strings.Contains(out, refusal) || strings.Contains(out, "kubectl delete crd") {
		t.Errorf("apply_crds on another refusal: want it to fail, showing kubectl's message alone; got %v and:\n%s", err, out)
	}
}
