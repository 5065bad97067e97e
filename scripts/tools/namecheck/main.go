// Command namecheck fails when a CRD's plural, singular or short name is already a
// name of another kind the API server serves. kubectl resolves a name to one resource
// only: with ImoocPod's short name `ip` on Kubernetes 1.37, whose IPAddress took `ip`,
// `kubectl get ip` lists IP addresses and `kubectl patch ip demo` fails.
//
// It reads the API server of the current kube context through discovery, so run it on
// a cluster that has none of the CRDs installed yet (scripts/test.sh does, on a fresh
// embedded cluster).
//
// Usage: namecheck CRD_FILE...
package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"k8s.io/client-go/discovery"
	"sigs.k8s.io/yaml"

	"github.com/kube-workshop/operator-workshop/shared/cluster"
)

// crd is the part of a CustomResourceDefinition that names it.
type crd struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Plural     string   `json:"plural"`
			Singular   string   `json:"singular"`
			ShortNames []string `json:"shortNames"`
		} `json:"names"`
	} `json:"spec"`
}

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: namecheck CRD_FILE [CRD_FILE ...]"))
	}
	cfg, err := cluster.Config("")
	if err != nil {
		fail(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		fail(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		fail(fmt.Errorf("reading the API server's resources: %w", err))
	}
	// Every name kubectl resolves, with the resources it may resolve to.
	taken := map[string][]string{}
	for _, list := range lists {
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource
			}
			owner := r.Name + " (" + list.GroupVersion + ")"
			for _, name := range append([]string{r.Name, r.SingularName}, r.ShortNames...) {
				if name != "" {
					taken[name] = append(taken[name], owner)
				}
			}
		}
	}

	var clashes []string
	for _, file := range os.Args[1:] {
		raw, err := os.ReadFile(file)
		if err != nil {
			fail(err)
		}
		var crd crd
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			fail(fmt.Errorf("%s: %w", file, err))
		}
		clashes = append(clashes, clashesOf(file, crd, taken)...)
	}
	slices.Sort(clashes)
	clashes = slices.Compact(clashes)
	if len(clashes) > 0 {
		fail(fmt.Errorf("kubectl would resolve these names to another resource; pick others:\n  %s",
			strings.Join(clashes, "\n  ")))
	}
	fmt.Printf("namecheck: no CRD name of %d files clashes with the %d names the API server serves\n",
		len(os.Args)-1, len(taken))
}

// clashesOf lists the names of c that taken (name: the resources it names) gives to
// another resource than c itself.
func clashesOf(file string, c crd, taken map[string][]string) []string {
	var clashes []string
	names := c.Spec.Names
	self := names.Plural + " (" + c.Spec.Group + "/"
	for _, name := range append([]string{names.Plural, names.Singular}, names.ShortNames...) {
		for _, owner := range taken[name] {
			if !strings.HasPrefix(owner, self) {
				clashes = append(clashes, fmt.Sprintf("%s: %s %q is also a name of %s", file, c.Metadata.Name, name, owner))
			}
		}
	}
	return clashes
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "namecheck: %v\n", err)
	os.Exit(1)
}
