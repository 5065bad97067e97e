package v1

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/kube-workshop/operator-workshop/shared/testenv"
	"github.com/kube-workshop/operator-workshop/solutions/17-sidecarset-observe/internal/sidecars"
)

// While go test fuzzes, testenv.RunWebhooks starts no API server, and every worker
// process would need one of its own. FuzzValidateSidecarSet needs one: the validator asks
// the API server about each SidecarSet (a dry run), and the fuzz target asks it about
// each pod it injects. So the fuzzing process, before it starts its workers, starts one
// API server, without webhooks or CRDs (the target calls the validator directly), and
// hands its address and credentials to the workers, which inherit its environment, in
// the file that fuzzAPIServerEnv names.
const fuzzAPIServerEnv = "SIDECARSET_FUZZ_APISERVER"

// fuzzAPIServer is what the file holds.
type fuzzAPIServer struct {
	Host            string
	CA, Cert, Key   []byte
	DryRunNamespace string
}

// fuzzWithAPIServer runs the fuzz target with an API server, started here in the
// fuzzing process when the target needs one and no process above started it.
func fuzzWithAPIServer(m *testing.M, scheme *runtime.Scheme) int {
	pattern := flag.Lookup("test.fuzz").Value.String()
	if matched, _ := regexp.MatchString(pattern, "FuzzValidateSidecarSet"); !matched || os.Getenv(fuzzAPIServerEnv) != "" {
		return m.Run()
	}
	assets, err := testenv.BinaryAssetsDirectory()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	te := &envtest.Environment{Scheme: scheme, BinaryAssetsDirectory: assets}
	cfg, err := te.Start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting an API server for the fuzz workers: %v\n", err)
		return 1
	}
	defer func() { _ = te.Stop() }()
	dir, err := os.MkdirTemp("", "sidecarset-fuzz-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		// The folder holds the API server's client key: say so if it stays behind.
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}()
	file := filepath.Join(dir, "apiserver.json")
	data, err := json.Marshal(fuzzAPIServer{Host: cfg.Host, CA: cfg.CAData, Cert: cfg.CertData, Key: cfg.KeyData,
		DryRunNamespace: metav1.NamespaceDefault})
	if err == nil {
		err = os.WriteFile(file, data, 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Setenv(fuzzAPIServerEnv, file); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

var (
	fuzzClientOnce sync.Once
	fuzzClient     client.Client
	fuzzNamespace  string
	fuzzClientErr  error
)

// dryRunTarget returns a client of an API server, and a namespace the fuzz target may
// create dry-run pods in: the test environment's, with the manager's namespace, or while
// fuzzing, the fuzzing process's (fuzzWithAPIServer), with default.
func dryRunTarget(t *testing.T) (client.Client, string) {
	t.Helper()
	if env != nil {
		return env.Client(), sidecars.DefaultManagerNamespace
	}
	fuzzClientOnce.Do(func() {
		var server fuzzAPIServer
		data, err := os.ReadFile(os.Getenv(fuzzAPIServerEnv))
		if err == nil {
			err = json.Unmarshal(data, &server)
		}
		if err != nil {
			fuzzClientErr = fmt.Errorf("reading the fuzzing process's API server from $%s: %w", fuzzAPIServerEnv, err)
			return
		}
		cfg := &rest.Config{Host: server.Host, QPS: 500, Burst: 1000,
			TLSClientConfig: rest.TLSClientConfig{CAData: server.CA, CertData: server.Cert, KeyData: server.Key}}
		fuzzClient, fuzzClientErr = client.New(cfg, client.Options{})
		fuzzNamespace = server.DryRunNamespace
	})
	if fuzzClientErr != nil {
		t.Fatal(fuzzClientErr)
	}
	return fuzzClient, fuzzNamespace
}
