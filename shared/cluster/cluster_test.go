package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestCheckContext(t *testing.T) {
	tests := []struct {
		name, context, allowed string
		wantErr                string
	}{
		{name: "embedded cluster", context: LocalContext},
		{name: "kind cluster", context: "kind-workshop"},
		{name: "explicitly allowed", context: "staging", allowed: "staging"},
		{name: "production refused", context: "prod-eu", wantErr: `"prod-eu" is not a workshop cluster`},
		{name: "allowing one context allows no other", context: "prod-eu", allowed: "staging", wantErr: "WORKSHOP_ALLOW_CONTEXT=prod-eu"},
		{name: "no context", context: "", wantErr: "no current kube context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			err := CheckContext(tt.context, tt.allowed)
			if tt.wantErr == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
		})
	}
}

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "https://127.0.0.1:6443"}
- name: remote
  cluster: {server: "https://prod.example.com:6443"}
users:
- name: admin
  user: {token: secret}
contexts:
- name: kwok-workshop
  context: {cluster: local, user: admin}
- name: prod
  context: {cluster: remote, user: admin}
current-context: CURRENT
`

func writeKubeconfig(t *testing.T, current string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(strings.Replace(kubeconfig, "CURRENT", current, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", path)
	t.Setenv(AllowContextEnv, "")
}

func TestConfigLoadsOnlyAWorkshopContext(t *testing.T) {
	tests := []struct {
		name, current, override, allowed string
		wantHost, wantErr                string
	}{
		{name: "uses the workshop context", current: "kwok-workshop", wantHost: "https://127.0.0.1:6443"},
		{name: "refuses another context", current: "prod", wantErr: `"prod" is not a workshop cluster`},
		{name: "another context explicitly allowed", current: "prod", allowed: "prod", wantHost: "https://prod.example.com:6443"},
		{name: "honours the context override", current: "prod", override: "kwok-workshop", wantHost: "https://127.0.0.1:6443"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			writeKubeconfig(t, tt.current)
			t.Setenv(AllowContextEnv, tt.allowed)

			cfg, err := Config(tt.override)
			if tt.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(cfg.Host).To(Equal(tt.wantHost))
		})
	}
}

// A pod of another cluster (a cloud IDE, a CI runner) has a service account too: without
// the deployed manager's opt-in, its cluster is refused like any other.
func TestConfigInAPodNeedsTheDeployedManagersOptIn(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	t.Setenv(InClusterEnv, "")

	_, err := Config("")
	g.Expect(err).To(MatchError(ContainSubstring("sets WORKSHOP_IN_CLUSTER=true in its Deployment")))

	// With the opt-in, the in-cluster config is used: here it finds no service account
	// token, which is the in-cluster loader speaking, not the guard.
	t.Setenv(InClusterEnv, "true")
	_, err = Config("")
	g.Expect(err).To(HaveOccurred())
	g.Expect(err.Error()).NotTo(ContainSubstring(InClusterEnv))
}
