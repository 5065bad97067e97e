// Command localwebhook lets a cluster call the admission webhooks of a manager that runs
// on this machine, as `make lesson-N` runs it. It reads a module's generated webhook
// configurations (config/webhook), makes a certificate authority and a serving
// certificate for the manager, points each webhook at https://HOST:PORT instead of an
// in-cluster Service, installs the configurations and prints the folder holding tls.crt
// and tls.key for the manager's --webhook-cert-dir.
//
// The embedded cluster's API server runs on this machine too, so 127.0.0.1 reaches the
// manager. A kind cluster's API server runs in a container: there the manager runs in the
// cluster with cert-manager (see docs/lesson-04.md).
//
// Usage:
//
//	localwebhook -webhooks config/webhook -port 9443 -cert-dir .cache/stage/certs
//	localwebhook -webhooks config/webhook -uninstall
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kube-workshop/operator-workshop/shared/cluster"
)

func main() {
	webhooks := flag.String("webhooks", "config/webhook", "the folder of the generated webhook configurations")
	host := flag.String("host", "127.0.0.1", "the address the API server calls the manager on")
	port := flag.Int("port", 9443, "the port of the manager's webhook server")
	certDir := flag.String("cert-dir", "", "where to write tls.crt and tls.key (required unless -uninstall)")
	uninstall := flag.Bool("uninstall", false, "delete the webhook configurations instead")
	flag.Parse()

	if err := run(*webhooks, *host, *port, *certDir, *uninstall); err != nil {
		fmt.Fprintf(os.Stderr, "localwebhook: %v\n", err)
		os.Exit(1)
	}
}

func run(webhooks, host string, port int, certDir string, uninstall bool) error {
	cfg, err := cluster.Config("")
	if err != nil {
		return err
	}
	opts := envtest.WebhookInstallOptions{
		Paths:            []string{webhooks},
		LocalServingHost: host,
		LocalServingPort: port,
	}
	if uninstall {
		return remove(cfg, opts)
	}
	if certDir == "" {
		return errors.New("-cert-dir: required, the folder the manager reads its certificate from")
	}
	if err := opts.Install(cfg); err != nil {
		return fmt.Errorf("installing the webhook configurations of %s: %w", webhooks, err)
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
func remove(cfg *rest.Config, opts envtest.WebhookInstallOptions) error {
	if err := opts.PrepWithoutInstalling(); err != nil {
		return err
	}
	defer os.RemoveAll(opts.LocalServingCertDir)
	scheme := runtime.NewScheme()
	if err := admissionv1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
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
