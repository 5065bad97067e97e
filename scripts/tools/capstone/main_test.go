//go:build capstone

package capstone

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// k is the client of every test: it reads the API server directly, never a cache.
var k client.Client

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// envtest logs through controller-runtime's logger: without one set, its first line
	// is a warning with a stack, which would stand in a failing row before the
	// requirement's message.
	ctrllog.SetLogger(logr.Discard())
	module, manager := os.Getenv("CAPSTONE_MODULE"), os.Getenv("CAPSTONE_MANAGER")
	if module == "" || manager == "" {
		fmt.Fprintln(os.Stderr, "capstone: set CAPSTONE_MODULE and CAPSTONE_MANAGER (make check-15 does)")
		return 2
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(module, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: []string{filepath.Join(module, "config", "webhook")}},
	}
	cfg, err := env.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "capstone: cannot start the control plane: %v\n", err)
		return 1
	}
	defer func() { _ = env.Stop() }()

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	if k, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintf(os.Stderr, "capstone: %v\n", err)
		return 1
	}

	// The manager gets a kubeconfig of its own: it runs as a cluster admin, as `make
	// run` does with yours.
	user, err := env.AddUser(envtest.User{Name: "capstone-manager", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		fmt.Fprintf(os.Stderr, "capstone: %v\n", err)
		return 1
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		fmt.Fprintf(os.Stderr, "capstone: %v\n", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "capstone-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "capstone: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	kubeconfigFile := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfigFile, kubeconfig, 0o600); err != nil {
		fmt.Fprintf(os.Stderr, "capstone: %v\n", err)
		return 1
	}

	wh := env.WebhookInstallOptions
	logOut := os.Stderr
	if name := os.Getenv("CAPSTONE_LOG"); name != "" {
		if logOut, err = os.Create(name); err != nil {
			fmt.Fprintf(os.Stderr, "capstone: %v\n", err)
			return 1
		}
		defer logOut.Close()
	}
	// The flags are those kubebuilder's cmd/main.go has: no metrics or probe server, so
	// that nothing else on this machine is in the way, and the webhook server on the port
	// the API server was told.
	cmd := exec.Command(manager, "--metrics-bind-address=0", "--health-probe-bind-address=0",
		"--webhook-cert-path="+wh.LocalServingCertDir, "--webhook-port="+strconv.Itoa(wh.LocalServingPort))
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfigFile)
	cmd.Stdout, cmd.Stderr = logOut, logOut
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "capstone: cannot start the manager %s: %v\n", manager, err)
		return 1
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	if err := waitForWebhooks(wh.LocalServingHost, wh.LocalServingPort, exited); err != nil {
		fmt.Fprintf(os.Stderr, "capstone: %v\n", err)
		return 1
	}
	return m.Run()
}

// waitForWebhooks waits until the manager's webhook server answers TLS on host:port:
// until then the API server refuses every ConfigMapCopy.
func waitForWebhooks(host string, port int, exited <-chan error) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("the manager ended before its webhook server answered (%v); its output is in CAPSTONE_LOG", err)
		default:
		}
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // a probe, not a client
		if err == nil {
			conn.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the manager's webhook server does not answer on %s after 60s: does cmd/main.go pass --webhook-port and --webhook-cert-path to webhook.NewServer? (%v)", addr, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
