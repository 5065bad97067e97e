package kubebuilder

import (
	"bytes"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// A project is what the tests read of a PROJECT file, in the fields of kubebuilder's
// pkg/config/v3 (Cfg) and pkg/model/resource; a field it does not know is an error, so
// that a misspelt one is not taken for an absent one.
type project struct {
	Version     string     `yaml:"version"`
	CLIVersion  string     `yaml:"cliVersion"` // kubebuilder init writes it (the capstone's)
	Domain      string     `yaml:"domain"`
	Layout      []string   `yaml:"layout"`
	MultiGroup  bool       `yaml:"multigroup"`
	ProjectName string     `yaml:"projectName"`
	Repo        string     `yaml:"repo"`
	Resources   []resource `yaml:"resources"`
	// Plugins beside the layout, with their settings: kubebuilder's helm plugin.
	Plugins map[string]map[string]string `yaml:"plugins"`
}

type resource struct {
	API *struct {
		CRDVersion string `yaml:"crdVersion"`
		Namespaced bool   `yaml:"namespaced"`
	} `yaml:"api"`
	Controller bool   `yaml:"controller"`
	Core       bool   `yaml:"core"`
	Domain     string `yaml:"domain"`
	Group      string `yaml:"group"`
	Kind       string `yaml:"kind"`
	Plural     string `yaml:"plural"`
	Path       string `yaml:"path"`
	Version    string `yaml:"version"`
	Webhooks   *struct {
		Defaulting     bool     `yaml:"defaulting"`
		Validation     bool     `yaml:"validation"`
		Conversion     bool     `yaml:"conversion"`
		Spoke          []string `yaml:"spoke"`
		WebhookVersion string   `yaml:"webhookVersion"`
	} `yaml:"webhooks"`
}

// readProject reads and decodes the PROJECT file at path.
func readProject(path string) (*project, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	var p project
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &p, nil
}

// group is the API group a resource of the project names: its group and the domain,
// or "" for the core group.
func (p *project) group(r resource) string {
	if r.Core {
		if r.Group == "core" {
			return ""
		}
		return r.Group
	}
	domain := r.Domain
	if domain == "" {
		domain = p.Domain
	}
	return r.Group + "." + domain
}

// yamlOf encodes a project, to compare two.
func yamlOf(p *project) (string, error) {
	b, err := yaml.Marshal(p)
	return string(b), err
}
