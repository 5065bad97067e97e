package v1

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// The CRD is what controller-gen writes from the markers of this package into
// config/crd/bases (make check-7 writes it before the tests run); this test reads it, and
// needs no API server: `go test ./api/...` runs it alone.
func TestTheCRDHasAStatusSubresourceAndColumns(t *testing.T) {
	g := NewWithT(t)
	file, err := os.Open(filepath.Join("..", "..", "..", "config", "crd", "bases", GroupVersion.Group+"_nodepools.yaml"))
	g.Expect(err).NotTo(HaveOccurred(), "the CRD that controller-gen writes from the markers (make check-7 writes it)")
	defer file.Close()
	crd := map[string]any{}
	g.Expect(yaml.NewYAMLOrJSONDecoder(file, 4096).Decode(&crd)).To(Succeed(), "the CRD file should be YAML")
	versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
	g.Expect(versions).To(HaveLen(1), "the CRD's versions")
	version := versions[0].(map[string]any)

	_, found, _ := unstructured.NestedMap(version, "subresources", "status")
	g.Expect(found).To(BeTrue(), "the CRD should have a status subresource (a +kubebuilder:subresource:status "+
		"marker on NodePool): without it the status is written with the spec, by anyone who may write the spec")

	columns, _, _ := unstructured.NestedSlice(version, "additionalPrinterColumns")
	var got []string
	for _, c := range columns {
		column := c.(map[string]any)
		got = append(got, fmt.Sprintf("%s=%s", column["name"], column["jsonPath"]))
	}
	g.Expect(got).To(Equal([]string{
		`Status=.status.conditions[?(@.type=="Ready")].reason`, "NodeCount=.status.nodeCount",
		"Handler=.spec.handler", "Age=.metadata.creationTimestamp",
	}), "kubectl get's columns, in this order: two +kubebuilder:printcolumn markers before Handler's")
}
