package main

// workshop webhook-host: the address a cluster's API server calls a manager that runs on
// this machine at (scripts/lib/manager.sh, manager_webhook_host: make lesson-N installs the
// stage's webhooks there).
//
// The embedded cluster's API server runs on this machine: 127.0.0.1. A kind cluster's runs
// in a container, a kind node, and reaches this machine:
//   - on Linux with Docker Engine, at the kind network's gateway: the bridge's address on
//     this machine, where the manager listens too (it listens on every address);
//   - with Docker Desktop (macOS, Windows through WSL 2, Linux) and colima, the containers
//     and their networks live in a VM, and the kind network's gateway is the VM's, not
//     this machine's. kind's own documentation says only that ("Docker Desktop for macOS
//     and Windows" in its known issues: the container networks are not exposed to the
//     host) and gives no address for the way back; its maintainers point to the name
//     Docker Desktop resolves in every container, host.docker.internal
//     (kubernetes-sigs/kind#2405), which colima resolves too (abiosoft/colima#254).
//
// WEBHOOK_HOST, when set, is used as it is: for a setup none of these fits.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

func webhookHostCommand(root string, args []string) error {
	if len(args) > 0 {
		return errors.New("usage: workshop webhook-host")
	}
	if host := os.Getenv("WEBHOOK_HOST"); host != "" {
		fmt.Println(host)
		return nil
	}
	ctx := context.Background()
	kubeContext, _, _ := runFor(ctx, 10*time.Second, "", nil, "kubectl", "config", "current-context")
	var p platform
	if strings.HasPrefix(kubeContext, "kind-") {
		p = platformOf(gatherPlatformFacts(ctx, root))
	}
	host, err := webhookHost(kubeContext, p, func() (string, error) { return kindGateway(ctx) })
	if err != nil {
		return err
	}
	fmt.Println(host)
	return nil
}

// webhookHost decides where the API server of the cluster of kubeContext reaches this
// machine, on platform p; gateway returns the kind network's gateway.
func webhookHost(kubeContext string, p platform, gateway func() (string, error)) (string, error) {
	switch {
	case !strings.HasPrefix(kubeContext, "kind-"):
		return "127.0.0.1", nil
	case p.os == osMac || p.docker == dockerDesktop || p.docker == dockerColima:
		return "host.docker.internal", nil
	}
	gw, err := gateway()
	if err != nil {
		return "", fmt.Errorf("cannot find the kind network's gateway, where the kind cluster reaches this machine (%v); see docs/lesson-04.md for cert-manager on kind", err)
	}
	return gw, nil
}

// kindGateway returns the gateway of the kind network, its first IPv4 one: the network
// has an IPv6 subnet too, in either order.
func kindGateway(ctx context.Context) (string, error) {
	out, stderr, err := runFor(ctx, 15*time.Second, "", nil, "docker", "network", "inspect", "kind", "--format", "{{json .IPAM.Config}}")
	if err != nil {
		return "", fmt.Errorf("docker network inspect kind: %v: %s", err, stderr)
	}
	return ipv4Gateway(out)
}

// ipv4Gateway returns the first IPv4 gateway of a network's IPAM configurations, as
// JSON.
func ipv4Gateway(configs string) (string, error) {
	var cs []struct{ Subnet, Gateway string }
	if err := json.Unmarshal([]byte(configs), &cs); err != nil {
		return "", fmt.Errorf("the kind network's IPAM configuration, %q: %w", configs, err)
	}
	for _, c := range cs {
		if ip := net.ParseIP(c.Gateway); ip != nil && ip.To4() != nil {
			return c.Gateway, nil
		}
	}
	return "", fmt.Errorf("the kind network has no IPv4 gateway: %s", configs)
}
