package scripts

import (
	"bufio"
	"os"
	"strings"
	"testing"

	kinddefaults "sigs.k8s.io/kind/pkg/apis/config/defaults"
)

// pins reads scripts/versions.env into a map of its variables.
func pins(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../../../versions.env")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		if name, value, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[name] = value
		}
	}
	return out
}

// kind's release notes list the node images built for that release, each with the
// digest to use; the first of them, for the newest Kubernetes minor, is the release's
// default. A node image that names a Kubernetes release kind never published, or one
// built for another kind release, is what the workshop must not pin.
func TestTheKindNodeImageIsTheOneThePinnedKindPublishes(t *testing.T) {
	got := pins(t)["KIND_NODE_IMAGE"]
	if got != kinddefaults.Image {
		t.Errorf("KIND_NODE_IMAGE in scripts/versions.env is %q; kind %s publishes %q for this Kubernetes minor: pin that, digest included",
			got, pins(t)["KIND_VERSION"], kinddefaults.Image)
	}
	minor := strings.Join(strings.SplitN(strings.TrimPrefix(pins(t)["KUBERNETES_VERSION"], "v"), ".", 3)[:2], ".")
	if !strings.HasPrefix(got, "kindest/node:v"+minor+".") {
		t.Errorf("KIND_NODE_IMAGE %q is not of Kubernetes %s, the minor of KUBERNETES_VERSION", got, minor)
	}
}
