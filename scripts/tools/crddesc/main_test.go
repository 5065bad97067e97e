package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A CRD as controller-gen writes it, with an embedded type below spec.containers, a
// property named description and a default that holds a description key: data, not
// schemas.
const sidecarSetCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sidecarsets.sidecars.workshop.dev
spec:
  group: sidecars.workshop.dev
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: SidecarSet adds containers to every pod it selects.
        properties:
          spec:
            description: SidecarSetSpec says which pods get which sidecars.
            properties:
              containers:
                description: Containers are the sidecars.
                items:
                  description: A single application container.
                  properties:
                    description:
                      description: A property named description stays.
                      type: string
                    name:
                      description: Name of the container.
                      type: string
                    ports:
                      items:
                        description: ContainerPort represents a network port.
                        properties:
                          protocol:
                            default: TCP
                            description: Protocol for port.
                            enum:
                            - TCP
                            - UDP
                            type: string
                        required:
                        - protocol
                        type: object
                      type: array
                      x-kubernetes-list-map-keys:
                      - protocol
                      x-kubernetes-list-type: map
                    resources:
                      additionalProperties:
                        anyOf:
                        - type: integer
                        - type: string
                        description: A quantity.
                        x-kubernetes-int-or-string: true
                      default:
                        description: data
                      type: object
                  required:
                  - name
                  type: object
                minItems: 1
                type: array
              selector:
                description: Selector picks the pods.
                properties:
                  matchLabels:
                    additionalProperties:
                      type: string
                    description: matchLabels is a map of {key,value} pairs.
                    type: object
                type: object
            required:
            - containers
            type: object
        type: object
    served: true
    storage: true
`

func drop(t *testing.T, raw string, fields ...string) string {
	t.Helper()
	byName := map[string][]string{}
	for _, f := range fields {
		name, field, _ := strings.Cut(f, ":")
		byName[name] = append(byName[name], field)
	}
	out, err := dropDescriptions([]byte(raw), byName)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestTheDescriptionsBelowAFieldGoAndItsOwnStays(t *testing.T) {
	got := drop(t, sidecarSetCRD, "sidecarsets.sidecars.workshop.dev:spec.containers")
	for _, kept := range []string{
		"SidecarSet adds containers", "SidecarSetSpec says", "Containers are the sidecars.",
		"Selector picks the pods.", "matchLabels is a map",
	} {
		if !strings.Contains(got, kept) {
			t.Errorf("the description %q is gone; only those below spec.containers should go:\n%s", kept, got)
		}
	}
	for _, gone := range []string{
		"A single application container.", "A property named description stays.", "Name of the container.",
		"ContainerPort represents", "Protocol for port.", "A quantity.",
	} {
		if strings.Contains(got, gone) {
			t.Errorf("the description %q below spec.containers is still there:\n%s", gone, got)
		}
	}
	if !strings.Contains(got, "                    description:\n                      type: string\n") {
		t.Errorf("the property named description should stay, without its description:\n%s", got)
	}
	if !strings.Contains(got, "default:\n                        description: data\n") {
		t.Errorf("a default is data, which should stay as it was:\n%s", got)
	}
}

func TestOnlyDescriptionLinesGo(t *testing.T) {
	got := drop(t, sidecarSetCRD, "sidecarsets.sidecars.workshop.dev:spec.containers")
	if err := onlyDescriptionsRemoved(sidecarSetCRD, got); err != nil {
		t.Error(err)
	}
	// Without any description left, the schemas are the same: validation is untouched.
	all := drop(t, sidecarSetCRD, "sidecarsets.sidecars.workshop.dev:spec")
	if !reflect.DeepEqual(withoutDescriptions(t, sidecarSetCRD), withoutDescriptions(t, all)) {
		t.Errorf("dropping descriptions changed something else")
	}
}

func TestAnotherCRDIsLeftAlone(t *testing.T) {
	if got := drop(t, sidecarSetCRD, "nodepools.nodes.workshop.dev:spec.taints"); got != sidecarSetCRD {
		t.Errorf("the file changed, though no field of its CRD was named:\n%s", got)
	}
}

func TestAFieldTheCRDDoesNotHaveIsAnError(t *testing.T) {
	_, err := dropDescriptions([]byte(sidecarSetCRD), map[string][]string{
		"sidecarsets.sidecars.workshop.dev": {"spec.sidecars"},
	})
	if err == nil || !strings.Contains(err.Error(), "sidecarsets.sidecars.workshop.dev version v1 has no field spec.sidecars") {
		t.Errorf("got %v, want an error naming the CRD, its version and the field", err)
	}
}

// A field new in a later version (ImoocPod v2's spec.template) is in that version's
// schema only: its descriptions go there, and the other versions stay as they were.
func TestAFieldOfOneVersionOnlyLosesItsDescriptionsThere(t *testing.T) {
	twoVersions := strings.Replace(sidecarSetCRD, "  versions:\n  - name: v1\n",
		"  versions:\n  - name: v0\n    schema:\n      openAPIV3Schema:\n        description: The old version.\n"+
			"        type: object\n  - name: v1\n", 1)
	got := drop(t, twoVersions, "sidecarsets.sidecars.workshop.dev:spec.containers")
	if !strings.Contains(got, "The old version.") || strings.Contains(got, "A single application container.") {
		t.Errorf("want the descriptions below v1's spec.containers gone and v0 as it was:\n%s", got)
	}
}

// A field that a later stage adds (CRD:FIELD?) may be missing from an earlier one's CRD.
func TestAnOptionalFieldMayBeMissing(t *testing.T) {
	if got := drop(t, sidecarSetCRD, "sidecarsets.sidecars.workshop.dev:spec.template?"); got != sidecarSetCRD {
		t.Errorf("the file changed, though its CRD has no such field:\n%s", got)
	}
}

// Every CRD of the workshop, as controller-gen wrote it: dropping the descriptions below
// any field of its spec or status removes description lines and nothing else, so the rest
// of the file stays as controller-gen writes it.
func TestTheWorkshopCRDsLoseOnlyDescriptionLines(t *testing.T) {
	files, _ := filepath.Glob("../../../solutions/*/config/crd/bases/*.yaml")
	if len(files) == 0 {
		t.Skip("no solutions/*/config/crd/bases/*.yaml: not in the workshop's checkout")
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var crd map[string]any
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			t.Fatal(err)
		}
		name := dig(crd, "metadata", "name").(string)
		schema := dig(crd, "spec", "versions").([]any)[0].(map[string]any)["schema"]
		var fields []string
		for _, top := range []string{"spec", "status"} {
			props, _ := dig(schema, "openAPIV3Schema", "properties", top, "properties").(map[string]any)
			for p := range props {
				fields = append(fields, name+":"+top+"."+p)
			}
		}
		slices.Sort(fields)
		got := drop(t, string(raw), fields...)
		if err := onlyDescriptionsRemoved(string(raw), got); err != nil {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// onlyDescriptionsRemoved fails unless after is before without some description entries:
// a line `description: ...` and the lines of its value, indented deeper (or blank, in a
// block scalar).
func onlyDescriptionsRemoved(before, after string) error {
	in, out := strings.Split(before, "\n"), strings.Split(after, "\n")
	j := 0
	for i := 0; i < len(in); i++ {
		if j < len(out) && in[i] == out[j] {
			j++
			continue
		}
		indent := len(in[i]) - len(strings.TrimLeft(in[i], " "))
		if !strings.HasPrefix(in[i][indent:], "description:") {
			return fmt.Errorf("line %d of before, %q, is gone or changed, and is no description", i+1, in[i])
		}
		for i+1 < len(in) && (in[i+1] == "" || len(in[i+1])-len(strings.TrimLeft(in[i+1], " ")) > indent) {
			i++
		}
	}
	if j != len(out) {
		return fmt.Errorf("line %d of after, %q, is new", j+1, out[j])
	}
	return nil
}

func withoutDescriptions(t *testing.T, raw string) any {
	t.Helper()
	var crd map[string]any
	if err := yaml.Unmarshal([]byte(raw), &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range dig(crd, "spec", "versions").([]any) {
		dropAllDescriptions(dig(v, "schema", "openAPIV3Schema").(map[string]any))
	}
	return crd
}
