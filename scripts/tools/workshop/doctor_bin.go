package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// readPins reads scripts/versions.env: NAME=value lines, comments and blank lines
// between them.
func readPins(root string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(root, "scripts", "versions.env"))
	if err != nil {
		return nil, err
	}
	pins := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("scripts/versions.env: %q is no NAME=value line", line)
		}
		pins[name] = strings.Trim(value, `"'`)
	}
	return pins, sc.Err()
}

// pinnedBinName is the name of the folder of built binaries the current pins name,
// kubernetes-<version>-<key>: what BIN is in scripts/lib/common.sh (bin_key), computed
// the same way, from every input that changes a binary: versions.env up to its line
// "# -- Not built from source", the go.mod and go.sum of the control plane, the tools,
// kubebuilder, helm and delve, and etcd's main.go. TestPinnedBinNameIsCommonShs keeps the two
// the same.
func pinnedBinName(root string, pins map[string]string) (string, error) {
	h := sha256.New()
	env, err := os.ReadFile(filepath.Join(root, "scripts", "versions.env"))
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(env)) {
		if strings.HasPrefix(line, "# -- Not built from source") {
			break
		}
		h.Write([]byte(line))
	}
	for _, name := range []string{"controlplane/go.mod", "controlplane/go.sum", "controlplane/etcd/main.go", "tools/go.mod", "tools/go.sum",
		"kubebuilder/go.mod", "kubebuilder/go.sum", "helm/go.mod", "helm/go.sum", "delve/go.mod", "delve/go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, "scripts", filepath.FromSlash(name)))
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return "kubernetes-" + pins["KUBERNETES_VERSION"] + "-" + hex.EncodeToString(h.Sum(nil))[:12], nil
}
