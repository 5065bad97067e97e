package main

import (
	"errors"
	"strings"
	"testing"
)

// The API server of the embedded cluster runs here: 127.0.0.1, on any platform. A kind
// cluster's reaches this machine at the kind network's gateway on Linux with Docker
// Engine, and at host.docker.internal where Docker runs in a VM (Docker Desktop on macOS,
// WSL 2 or Linux; colima; any Docker on a Mac), whose gateway is not this machine.
func TestWebhookHostFitsThePlatform(t *testing.T) {
	gateway := func() (string, error) { return "172.18.0.1", nil }
	dockerDesktopOnLinux := linuxEngine
	dockerDesktopOnLinux.DockerCtx, dockerDesktopOnLinux.DockerOS, dockerDesktopOnLinux.DockerErr = "desktop-linux", "Docker Desktop", ""
	for _, tc := range []struct {
		name, context string
		facts         platformFacts
		want          string
	}{
		{"embedded cluster on a Mac", "kwok-workshop", macAppleSiliconBrewDesktop, "127.0.0.1"},
		{"embedded cluster on Linux", "kwok-workshop", linuxEngine, "127.0.0.1"},
		{"no context", "", linuxEngine, "127.0.0.1"},
		{"kind on Docker Desktop, macOS", "kind-workshop", macAppleSiliconBrewDesktop, "host.docker.internal"},
		{"kind on colima", "kind-workshop", macColima, "host.docker.internal"},
		{"kind on Docker Desktop, WSL 2", "kind-workshop", wslHomeDesktopRunning, "host.docker.internal"},
		{"kind on Docker Desktop, Linux", "kind-workshop", dockerDesktopOnLinux, "host.docker.internal"},
		{"kind on Docker Engine, Linux", "kind-workshop", linuxEngine, "172.18.0.1"},
	} {
		got, err := webhookHost(tc.context, platformOf(tc.facts), gateway)
		if err != nil || got != tc.want {
			t.Errorf("%s: webhookHost = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// Without a kind network's gateway, webhook-host says where to look instead.
func TestWebhookHostSaysWhenThereIsNoGateway(t *testing.T) {
	_, err := webhookHost("kind-workshop", platformOf(linuxEngine), func() (string, error) { return "", errors.New("no network kind") })
	if err == nil || !containsAll(err.Error(), "kind network's gateway", "no network kind", "docs/lesson-04.md") {
		t.Errorf("want an error naming the gateway, the cause and docs/lesson-04.md, got %v", err)
	}
}

// The kind network's gateway is its IPv4 one, whichever comes first.
func TestIPv4Gateway(t *testing.T) {
	got, err := ipv4Gateway(`[{"Subnet":"fc00:f853:ccd:e793::/64","Gateway":"fc00:f853:ccd:e793::1"},{"Subnet":"172.18.0.0/16","Gateway":"172.18.0.1"}]`)
	if err != nil || got != "172.18.0.1" {
		t.Errorf("ipv4Gateway = %q, %v; want 172.18.0.1", got, err)
	}
	if _, err := ipv4Gateway(`[{"Subnet":"fc00::/64","Gateway":"fc00::1"}]`); err == nil {
		t.Errorf("a network without an IPv4 gateway gave one")
	}
}

// containsAll says whether s contains every one of parts.
func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
