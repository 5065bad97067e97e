package main

import (
	"fmt"
	"regexp"
	"strings"
)

// platformFacts is what the doctor and webhook-host learn of the machine: read by
// gatherPlatformFacts, and given by the tests, one platform at a time, so that every
// platform's advice is tested on any machine.
type platformFacts struct {
	GOOS, GOARCH string // runtime.GOOS and GOARCH of this program, which go built for this machine
	Translated   bool   // this process runs under Rosetta 2 (sysctl.proc_translated is 1)
	MacVersion   string // sw_vers -productVersion
	Brew         string // the path of Homebrew's brew, "" without Homebrew
	ProcVersion  string // /proc/version: the kernel, which names WSL
	OSRelease    string // PRETTY_NAME of /etc/os-release
	Root         string // the checkout's absolute folder
	Docker       string // the path of docker, symbolic links followed; "" without docker
	DockerCtx    string // docker context show: desktop-linux, colima, default...
	DockerOS     string // docker info's OperatingSystem; "" when no daemon answered
	DockerName   string // docker info's Name, the daemon's host: colima's VM is "colima"
	DockerErr    string // what docker info said when it failed
}

// The systems the doctor tells apart.
const (
	osMac   = "macOS"
	osWSL   = "WSL"
	osLinux = "Linux"
)

// The Docker runtimes it tells apart: each starts, and reaches the host, its own way.
const (
	dockerNone    = ""
	dockerDesktop = "Docker Desktop"
	dockerColima  = "colima"
	dockerEngine  = "Docker Engine"
)

// A platform is what the facts say of the machine: every fix the doctor prints is
// chosen from it.
type platform struct {
	os           string // osMac, osWSL, osLinux, or GOOS for any other
	appleSilicon bool   // an Apple silicon Mac, whatever this program's architecture
	rosetta      bool   // this program, so the go that built it, is Intel code on Apple silicon
	wsl1         bool   // WSL 1, which runs no Linux kernel, so no Docker and no kind
	windowsDrive string // under WSL, the Windows drive (/mnt/c) the checkout is on, else ""
	docker       string // the Docker runtime, dockerNone without docker
	facts        platformFacts
}

// windowsDrive matches a folder on a Windows drive as WSL mounts it: /mnt/c, /mnt/d/...
var windowsDrive = regexp.MustCompile(`^/mnt/[a-zA-Z](/|$)`)

// platformOf works out the platform from the facts.
func platformOf(f platformFacts) platform {
	p := platform{os: f.GOOS, facts: f}
	switch f.GOOS {
	case "darwin":
		p.os = osMac
		p.rosetta = f.Translated
		p.appleSilicon = f.GOARCH == "arm64" || f.Translated
	case "linux":
		p.os = osLinux
		// WSL's kernels name Microsoft: 5.15.153.1-microsoft-standard-WSL2 for WSL 2,
		// 4.4.0-19041-Microsoft for WSL 1 (which has no Linux kernel, but a translation).
		if v := strings.ToLower(f.ProcVersion); strings.Contains(v, "microsoft") || strings.Contains(v, "wsl") {
			p.os = osWSL
			p.wsl1 = !strings.Contains(v, "wsl2") && !strings.Contains(v, "microsoft-standard")
			if m := windowsDrive.FindString(f.Root); m != "" {
				p.windowsDrive = strings.TrimSuffix(m, "/")
			}
		}
	}
	p.docker = dockerRuntime(p.os, f)
	return p
}

// dockerRuntime names the runtime behind docker: what the daemon says of itself when it
// answers, else what the CLI's context and path say.
func dockerRuntime(os string, f platformFacts) string {
	switch {
	case f.Docker == "":
		return dockerNone
	case strings.Contains(f.DockerOS, "Docker Desktop"):
		return dockerDesktop
	case f.DockerName == "colima" || strings.HasPrefix(f.DockerCtx, "colima"):
		return dockerColima
	case f.DockerCtx == "desktop-linux":
		return dockerDesktop
	// WSL integration puts Docker Desktop's CLI into the distribution from there.
	case os == osWSL && strings.Contains(f.Docker, "docker-desktop"):
		return dockerDesktop
	// On a Mac docker runs in a VM: Docker Desktop's, unless the context said colima.
	case os == osMac && f.DockerOS == "":
		return dockerDesktop
	}
	return dockerEngine
}

// describe is the doctor's first line: the platform, as the fixes below assume it.
func (p platform) describe() string {
	var s string
	switch p.os {
	case osMac:
		chip := "an Intel Mac"
		if p.appleSilicon {
			chip = "Apple silicon"
		}
		s = fmt.Sprintf("macOS %s on %s", p.facts.MacVersion, chip)
		if p.facts.MacVersion == "" {
			s = "macOS on " + chip
		}
		if p.facts.Brew != "" {
			s += ", with Homebrew (" + p.facts.Brew + ")"
		} else {
			s += ", with its own tools (no Homebrew)"
		}
	case osWSL:
		s = "Windows, WSL 2"
		if p.wsl1 {
			s = "Windows, WSL 1"
		}
		if p.facts.OSRelease != "" {
			s += " (" + p.facts.OSRelease + ")"
		}
	case osLinux:
		s = "Linux"
		if p.facts.OSRelease != "" {
			s += " (" + p.facts.OSRelease + ")"
		}
	default:
		s = p.os
	}
	s += ", " + p.facts.GOARCH
	if p.docker != dockerNone {
		s += "; Docker: " + p.docker
	}
	return s
}

// An advice is a line the doctor prints about the platform itself: what is slow or
// unsupported there, and its fix.
type advice struct {
	level, text, fix string
}

// platformAdvice says what on this platform itself costs the learner time.
func (p platform) platformAdvice() []advice {
	var out []advice
	if p.rosetta {
		out = append(out, advice{levelWarn,
			"your go is the Intel (amd64) build, run by Rosetta 2 on Apple silicon: every build and test is slower, and the binaries are Intel code",
			p.installGo("")})
	}
	if p.wsl1 {
		out = append(out, advice{levelProblem,
			"WSL 1 runs no Linux kernel: the control plane's etcd and Docker need WSL 2",
			"in Windows PowerShell: wsl --set-version <your distribution> 2 (wsl -l -v lists them)"})
	}
	if p.windowsDrive != "" {
		out = append(out, advice{levelWarn,
			"this checkout is on the Windows drive " + p.windowsDrive + ": WSL reads it through a network file system, and builds and tests run several times slower",
			"clone the workshop into your Linux home instead (cd ~ && git clone ...) and work there"})
	}
	return out
}

// installGo is how to install Go (version, or the newest when "") on this platform.
func (p platform) installGo(version string) string {
	want := "Go " + version + " or newer"
	if version == "" {
		want = "Go"
	}
	switch p.os {
	case osMac:
		arch := "amd64 (Intel)"
		if p.appleSilicon {
			arch = "arm64 (Apple silicon)"
		}
		if p.facts.Brew != "" && !p.rosetta {
			return "brew install go (or brew upgrade go): " + want
		}
		if p.rosetta {
			return "install the " + arch + " package of " + want + " from https://go.dev/dl/ and put it first on PATH (remove the Intel one; an Intel Homebrew in /usr/local installs Intel code)"
		}
		return "install the macOS " + arch + " package of " + want + " from https://go.dev/dl/"
	case osWSL:
		return "in WSL, not in Windows: install the linux-" + p.facts.GOARCH + " archive of " + want + " from https://go.dev/dl/ into /usr/local/go (https://go.dev/doc/install)"
	case osLinux:
		return "install the linux-" + p.facts.GOARCH + " archive of " + want + " from https://go.dev/dl/ into /usr/local/go (https://go.dev/doc/install)"
	}
	return "install " + want + " from https://go.dev/dl/"
}

// startDocker is how to start the Docker runtime on this platform.
func (p platform) startDocker() string {
	switch {
	case p.docker == dockerColima:
		return "colima start"
	case p.os == osMac:
		return "open Docker Desktop (open -a Docker) and wait until it says it is running"
	case p.os == osWSL && p.docker != dockerEngine:
		return "open Docker Desktop in Windows; in its Settings > Resources > WSL integration, turn on this distribution"
	case p.os == osWSL:
		// Docker Engine installed in the distribution; WSL starts systemd only when
		// /etc/wsl.conf asks for it, and service works either way.
		return "sudo service docker start"
	}
	return "sudo systemctl start docker"
}

// permitDocker is how to let the user use the Docker daemon on this platform.
func (p platform) permitDocker() string {
	switch {
	case p.docker == dockerColima:
		return "colima stop && colima start (colima's socket belongs to you)"
	case p.os == osMac || p.docker == dockerDesktop:
		return "quit and reopen Docker Desktop; its socket belongs to the user who runs it"
	}
	return "sudo usermod -aG docker $USER, then log in again"
}

// installDocker is where Docker comes from on this platform, for make kind-up.
func (p platform) installDocker() string {
	switch p.os {
	case osMac:
		if p.facts.Brew != "" {
			return "Docker Desktop (https://www.docker.com/products/docker-desktop/) or colima (brew install colima docker && colima start)"
		}
		return "Docker Desktop (https://www.docker.com/products/docker-desktop/)"
	case osWSL:
		return "Docker Desktop for Windows with WSL integration for this distribution (https://docs.docker.com/desktop/features/wsl/)"
	}
	return "Docker Engine (https://docs.docker.com/engine/install/)"
}

// freeDisk is how to free disk space on this platform, beyond the workshop's caches.
func (p platform) freeDisk() string {
	s := "go clean -cache empties the Go build cache; old folders in .cache/bin can go"
	switch {
	case p.docker == dockerDesktop && p.os == osMac:
		s += "; Docker Desktop's disk is in its VM: docker system prune frees it"
	case p.os == osWSL:
		s += "; WSL's disk grows but never shrinks by itself: see https://learn.microsoft.com/windows/wsl/disk-space"
	}
	return s
}
