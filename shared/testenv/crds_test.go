package testenv

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.testenv.workshop.dev
spec:
  group: testenv.workshop.dev
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// A package's first test often creates a custom resource within milliseconds of the
// environment's start. The API server holds such a create for 2 s while the kind's CRD
// has been Established for less than 2 s; the environment must not leave that wait to
// the test.
func TestACustomResourceIsNotHeldBackRightAfterTheStart(t *testing.T) {
	g := NewWithT(t)
	crds := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(crds, "widgets.yaml"), []byte(widgetCRD), 0o644)).To(Succeed())
	e := unstartedEnv(t, Options{CRDDirectoryPaths: []string{crds}})

	c, err := client.New(e.Config(), client.Options{Scheme: Scheme(apiextensionsv1.AddToScheme)})
	g.Expect(err).NotTo(HaveOccurred())
	var crd apiextensionsv1.CustomResourceDefinition
	g.Expect(c.Get(e.Context(), client.ObjectKey{Name: "widgets.testenv.workshop.dev"}, &crd)).To(Succeed())
	established := apihelpers.FindCRDCondition(&crd, apiextensionsv1.Established)
	g.Expect(established).NotTo(BeNil(), "the CRD is Established once the environment has started")
	g.Expect(established.Status).To(Equal(apiextensionsv1.ConditionTrue))
	g.Expect(time.Since(established.LastTransitionTime.Time)).To(BeNumerically(">=", 2*time.Second),
		"the API server holds every create of a Widget for 2 s while its CRD has been Established for less")

	widget := &unstructured.Unstructured{}
	widget.SetAPIVersion("testenv.workshop.dev/v1")
	widget.SetKind("Widget")
	widget.SetName("first")
	g.Expect(e.Client().Create(e.Context(), widget)).To(Succeed())
}
