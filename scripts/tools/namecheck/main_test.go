package main

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The part of a CustomResourceDefinition namecheck reads (crd): its name and group, and
// the names of its kind.
const imoocPodCRD = `
metadata:
  name: imoocpods.apps.workshop.dev
spec:
  group: apps.workshop.dev
  names:
    kind: ImoocPod
    plural: imoocpods
    singular: imoocpod
    shortNames: [%s]
`

func parse(t *testing.T, shortName string) crd {
	t.Helper()
	var c crd
	if err := yaml.Unmarshal([]byte(strings.Replace(imoocPodCRD, "%s", shortName, 1)), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAShortNameOfABuiltInKindClashes(t *testing.T) {
	taken := map[string][]string{"ip": {"ipaddresses (networking.k8s.io/v1)"}}
	got := clashesOf("crd.yaml", parse(t, "ip"), taken)
	if len(got) != 1 || !strings.Contains(got[0], `imoocpods.apps.workshop.dev "ip" is also a name of ipaddresses (networking.k8s.io/v1)`) {
		t.Errorf("got %q, want one clash naming the CRD, the name and the built-in resource", got)
	}
}

func TestTheCRDsOwnNamesDoNotClash(t *testing.T) {
	// The CRD installed already: the API server serves its names, as its own.
	taken := map[string][]string{
		"imoocpods": {"imoocpods (apps.workshop.dev/v1)"},
		"imoocpod":  {"imoocpods (apps.workshop.dev/v1)"},
		"imp":       {"imoocpods (apps.workshop.dev/v1)"},
		"ip":        {"ipaddresses (networking.k8s.io/v1)"},
	}
	if got := clashesOf("crd.yaml", parse(t, "imp"), taken); len(got) != 0 {
		t.Errorf("got %q, want no clash", got)
	}
}
