// Command localwebhook lets a cluster call the admission webhooks of a manager that runs
// on this machine, as `make lesson-N` runs it. It reads a module's generated webhook
// configurations (config/webhook), makes a certificate authority and a serving
// certificate for the manager, points each webhook at https://HOST:PORT instead of an
// in-cluster Service, installs the configurations and prints the folder holding tls.crt
// and tls.key for the manager's --webhook-cert-dir.
//
// With -crds, every CRD of that folder that serves more than one version gets its
// conversions from the manager too: its spec.conversion is pointed at
// https://HOST:PORT/convert, with the same certificate authority. -uninstall sets it back
// to None, under which the API server converts by changing apiVersion alone.
//
// The embedded cluster's API server runs on this machine too, so 127.0.0.1 reaches the
// manager. A kind cluster's API server runs in a container: there the manager runs in the
// cluster with cert-manager (see docs/lesson-04.md).
//
// Usage:
//
//	localwebhook -webhooks config/webhook [-crds config/crd/bases] -port 9443 -cert-dir .cache/stage/certs
//	localwebhook -webhooks config/webhook [-crds config/crd/bases] -uninstall
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/kube-workshop/operator-workshop/shared/cluster"
)

func main() {
	webhooks := flag.String("webhooks", "config/webhook", "the folder of the generated webhook configurations")
	host := flag.String("host", "127.0.0.1", "the address the API server calls the manager on")
	port := flag.Int("port", 9443, "the port of the manager's webhook server")
	certDir := flag.String("cert-dir", "", "where to write tls.crt and tls.key (required unless -uninstall)")
	crds := flag.String("crds", "", "the folder of the CRDs: those that serve several versions convert them through the manager")
	uninstall := flag.Bool("uninstall", false, "delete the webhook configurations instead")
	flag.Parse()

	if err := run(*webhooks, *crds, *host, *port, *certDir, *uninstall); err != nil {
		fmt.Fprintf(os.Stderr, "localwebhook: %v\n", err)
		os.Exit(1)
	}
}

func run(webhooks, crdDir, host string, port int, certDir string, uninstall bool) error {
	cfg, err := cluster.Config("")
	if err != nil {
		return err
	}
	opts := envtest.WebhookInstallOptions{
		Paths:            []string{webhooks},
		LocalServingHost: host,
		LocalServingPort: port,
		// A stage may serve conversions without any admission webhook.
		IgnoreErrorIfPathMissing: crdDir != "",
	}
	converting, err := convertingCRDs(crdDir)
	if err != nil {
		return err
	}
	if uninstall {
		return errors.Join(remove(cfg, opts), convertThrough(cfg, converting, nil))
	}
	if certDir == "" {
		return errors.New("-cert-dir: required, the folder the manager reads its certificate from")
	}
	if err := opts.Install(cfg); err != nil {
		return fmt.Errorf("installing the webhook configurations of %s: %w", webhooks, err)
	}
	url := fmt.Sprintf("https://%s/convert", net.JoinHostPort(host, strconv.Itoa(port)))
	if err := convertThrough(cfg, converting, &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: opts.LocalServingCAData}); err != nil {
		return err
	}
	// envtest wrote the certificate to a temporary folder; move it where the caller wants.
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return err
	}
	for _, name := range []string{"tls.crt", "tls.key"} {
		data, err := os.ReadFile(filepath.Join(opts.LocalServingCertDir, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(certDir, name), data, 0o600); err != nil {
			return err
		}
	}
	fmt.Println(certDir)
	return os.RemoveAll(opts.LocalServingCertDir)
}

// remove deletes the configurations, so that a cluster whose manager has stopped does not
// refuse every request its webhooks would have answered.
func remove(cfg *rest.Config, opts envtest.WebhookInstallOptions) (err error) {
	if err := opts.PrepWithoutInstalling(); err != nil {
		return err
	}
	// PrepWithoutInstalling wrote a serving certificate that nothing here uses: a
	// certificate left in a temporary folder is worth a word.
	defer func() { err = errors.Join(err, os.RemoveAll(opts.LocalServingCertDir)) }()
	c, err := newClient(cfg, admissionv1.AddToScheme)
	if err != nil {
		return err
	}
	var errs []error
	for _, hook := range opts.MutatingWebhooks {
		errs = append(errs, client.IgnoreNotFound(c.Delete(context.Background(), hook)))
	}
	for _, hook := range opts.ValidatingWebhooks {
		errs = append(errs, client.IgnoreNotFound(c.Delete(context.Background(), hook)))
	}
	return errors.Join(errs...)
}

// convertingCRDs returns the names of the CRDs in dir that serve more than one version.
func convertingCRDs(dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(raw, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(crd.Spec.Versions) > 1 {
			names = append(names, crd.Name)
		}
	}
	return names, nil
}

// convertThrough points the conversions of the CRDs named at the webhook of to, or sets
// them back to None when to is nil.
func convertThrough(cfg *rest.Config, names []string, to *apiextensionsv1.WebhookClientConfig) error {
	if len(names) == 0 {
		return nil
	}
	conversion := map[string]any{"strategy": apiextensionsv1.NoneConverter, "webhook": nil}
	if to != nil {
		conversion = map[string]any{
			"strategy": apiextensionsv1.WebhookConverter,
			"webhook":  apiextensionsv1.WebhookConversion{ClientConfig: to, ConversionReviewVersions: []string{"v1"}},
		}
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"conversion": conversion}})
	if err != nil {
		return err
	}
	c, err := newClient(cfg, apiextensionsv1.AddToScheme)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range names {
		crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name}}
		err := c.Patch(context.Background(), crd, client.RawPatch(types.MergePatchType, patch))
		if to == nil {
			err = client.IgnoreNotFound(err)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("setting the conversion of CRD %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// newClient returns a client of the cluster cfg that knows the kinds addToScheme adds.
func newClient(cfg *rest.Config, addToScheme func(*runtime.Scheme) error) (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := addToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}
