package bootstrap

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"strconv"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// The webhook server speaks HTTP/1.1 to a client that offers HTTP/2 as well: HTTP/2 is
// open to the Rapid Reset attack (NewWebhookServer).
func TestTheWebhookServerSpeaksHTTP1Only(t *testing.T) {
	// envtest's self-signed serving certificate; no API server starts.
	certs := envtest.WebhookInstallOptions{}
	if err := certs.PrepWithoutInstalling(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = certs.Cleanup() })
	srv := NewWebhookServer(webhook.Options{
		Host: certs.LocalServingHost, Port: certs.LocalServingPort, CertDir: certs.LocalServingCertDir,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the webhook server stopped with an error: %v", err)
		}
	})
	for deadline := time.Now().Add(5 * time.Second); srv.StartedChecker()(nil) != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the webhook server did not start: %v", srv.StartedChecker()(nil))
		}
	}

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certs.LocalServingCAData)
	addr := net.JoinHostPort(certs.LocalServingHost, strconv.Itoa(certs.LocalServingPort))
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	// The handshake has told the test all it asks; a failure to close the connection
	// says nothing about the server.
	defer func() { _ = conn.Close() }()
	if got := conn.ConnectionState().NegotiatedProtocol; got != "http/1.1" {
		t.Errorf("the webhook server agreed on %q with a client that offers h2 and http/1.1; want http/1.1", got)
	}
}
