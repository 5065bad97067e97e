// Command crddesc drops, from the CRDs controller-gen wrote, the descriptions of the
// Kubernetes types a CRD embeds: below a SidecarSet's spec.containers lies the whole
// corev1.Container, with every description `kubectl explain pod.spec.containers` already
// gives, half of the CRD. controller-gen's own option, crd:maxDescLen=0, drops every
// description, the CRD's own fields' too, which `kubectl explain` shows.
//
// For each CRD:FIELD (sidecarsets.sidecars.workshop.dev:spec.containers), every version's
// schema keeps FIELD's own description and loses every description below it. Nothing
// else changes: only "description" keys of schemas go, and the file is written the way
// controller-gen writes it. A CRD that is not in DIR is skipped; a FIELD that is in none
// of the CRD's versions is an error, unless it ends in ? (CRD:FIELD?): a field of a later
// stage's version, which the earlier stages' CRD lacks. Files with nothing to drop are
// left untouched.
//
// Usage: crddesc DIR CRD:FIELD[?]...
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 3 {
		fail(errors.New("usage: crddesc DIR CRD:FIELD[?] [CRD:FIELD[?] ...]"))
	}
	fields := map[string][]string{}
	for _, arg := range os.Args[2:] {
		name, field, ok := strings.Cut(arg, ":")
		if !ok || name == "" || field == "" {
			fail(fmt.Errorf("%q is not CRD:FIELD, like sidecarsets.sidecars.workshop.dev:spec.containers", arg))
		}
		fields[name] = append(fields[name], field)
	}
	files, err := filepath.Glob(filepath.Join(os.Args[1], "*.yaml"))
	if err != nil {
		fail(err)
	}
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		out, err := dropDescriptions(raw, fields)
		if err != nil {
			fail(fmt.Errorf("%s: %w", file, err))
		}
		if !bytes.Equal(out, raw) {
			if err := os.WriteFile(file, out, 0o644); err != nil {
				fail(err)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "crddesc:", err)
	os.Exit(1)
}

// dropDescriptions returns a CRD file, as controller-gen writes it (a header, then
// "---" and one document), with the descriptions below its fields in fields[its name]
// dropped; raw itself when the CRD has none there.
func dropDescriptions(raw []byte, fields map[string][]string) ([]byte, error) {
	header, doc, ok := bytes.Cut(raw, []byte("---\n"))
	if !ok || bytes.Contains(doc, []byte("\n---\n")) {
		return nil, fmt.Errorf("not one YAML document after a ---: not a file controller-gen wrote")
	}
	// Numbers stay json.Number, as controller-gen keeps them.
	var crd map[string]any
	if err := yaml.Unmarshal(doc, &crd, func(d *json.Decoder) *json.Decoder { d.UseNumber(); return d }); err != nil {
		return nil, err
	}
	name, _ := dig(crd, "metadata", "name").(string)
	if len(fields[name]) == 0 {
		return raw, nil
	}
	// A field new in a later version is in that version's schema only; a field in none
	// is a misspelt one.
	versions, _ := dig(crd, "spec", "versions").([]any)
	for _, field := range fields[name] {
		field, optional := strings.CutSuffix(field, "?")
		var found []string
		for _, v := range versions {
			version, _ := v.(map[string]any)
			s, _ := dig(version, "schema", "openAPIV3Schema").(map[string]any)
			for _, property := range strings.Split(field, ".") {
				s, _ = dig(s, "properties", property).(map[string]any)
			}
			if s != nil {
				found = append(found, fmt.Sprint(version["name"]))
				forEachSubschema(s, dropAllDescriptions)
			}
		}
		if len(found) == 0 && !optional {
			var names []string
			for _, v := range versions {
				names = append(names, fmt.Sprint(dig(v, "name")))
			}
			return nil, fmt.Errorf("%s version %s has no field %s in its schema", name, strings.Join(names, ", "), field)
		}
	}
	// Marshalled as controller-gen's genall.WriteYAML does: sigs.k8s.io/yaml.Marshal of a
	// map[string]any.
	out, err := yaml.Marshal(crd)
	if err != nil {
		return nil, err
	}
	return append(append(header, "---\n"...), out...), nil
}

// dig returns the value at keys in nested maps, or nil.
func dig(v any, keys ...string) any {
	for _, key := range keys {
		m, _ := v.(map[string]any)
		v = m[key]
	}
	return v
}

// dropAllDescriptions deletes the description of schema s and of every schema in it.
func dropAllDescriptions(s map[string]any) {
	delete(s, "description")
	forEachSubschema(s, dropAllDescriptions)
}

// forEachSubschema calls f on each schema directly in schema s: the values of its
// properties, patternProperties, definitions and dependencies, its items and
// additionalItems, additionalProperties, allOf, anyOf, oneOf and not (the
// JSONSchemaProps fields of apiextensions/v1 that hold schemas). Values that are not
// schemas (additionalProperties: true, a dependency's list of names) are skipped, and
// so is every other key: a default, an enum or an example is data, not a schema.
func forEachSubschema(s map[string]any, f func(map[string]any)) {
	visit := func(v any) {
		switch v := v.(type) {
		case map[string]any:
			f(v)
		case []any: // items as a list of schemas, allOf, anyOf, oneOf
			for _, e := range v {
				if e, ok := e.(map[string]any); ok {
					f(e)
				}
			}
		}
	}
	for _, key := range []string{"properties", "patternProperties", "definitions", "dependencies"} {
		if m, ok := s[key].(map[string]any); ok {
			for _, v := range m {
				if v, ok := v.(map[string]any); ok {
					f(v)
				}
			}
		}
	}
	for _, key := range []string{"items", "additionalItems", "additionalProperties", "allOf", "anyOf", "oneOf", "not"} {
		visit(s[key])
	}
}
