package testenv

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// backdateEstablished moves the time at which each of crds became Established a minute
// back. The API server holds every create of a custom resource for 2 s while its CRD has
// been Established for less than 2 s, so that in a cluster of several API servers the
// others see the CRD before a client's next request reaches them (apiextensions-apiserver,
// crdHandler.serveResource). envtest runs one API server, and a package's first test
// creates its first object within milliseconds of the start: it would wait those 2 s.
// The condition's time is all the API server reads; its storage of the kind stays as it
// is.
func backdateEstablished(cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) error {
	c, err := client.New(cfg, client.Options{Scheme: Scheme(apiextensionsv1.AddToScheme)})
	if err != nil {
		return err
	}
	ctx := context.Background()
	before := metav1.NewTime(time.Now().Add(-time.Minute))
	for _, installed := range crds {
		// The API server's own controllers write the CRD's status too: on a conflict,
		// read it again.
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := c.Get(ctx, client.ObjectKey{Name: installed.Name}, &crd); err != nil {
				return err
			}
			established := apihelpers.FindCRDCondition(&crd, apiextensionsv1.Established)
			if established == nil {
				return nil // envtest waits for every CRD to be served: not expected
			}
			established.LastTransitionTime = before
			return c.Status().Update(ctx, &crd)
		})
		if err != nil {
			return fmt.Errorf("backdating CRD %s's Established condition: %w", installed.Name, err)
		}
	}
	return nil
}
