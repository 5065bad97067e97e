package main

import (
	"strings"
	"testing"
)

// The platforms a learner runs the workshop on, as their facts show them.
var (
	macAppleSiliconBrewDesktop = platformFacts{
		GOOS: "darwin", GOARCH: "arm64", MacVersion: "15.1", Brew: "/opt/homebrew/bin/brew", Root: "/Users/ann/operator-workshop",
		Docker: "/Applications/Docker.app/Contents/Resources/bin/docker", DockerCtx: "desktop-linux",
		DockerErr: "Cannot connect to the Docker daemon at unix:///Users/ann/.docker/run/docker.sock. Is the docker daemon running?",
	}
	macIntelStock = platformFacts{
		GOOS: "darwin", GOARCH: "amd64", MacVersion: "14.6", Root: "/Users/bob/operator-workshop",
	}
	macRosetta = platformFacts{
		GOOS: "darwin", GOARCH: "amd64", Translated: true, MacVersion: "15.1", Brew: "/usr/local/bin/brew", Root: "/Users/cy/w",
	}
	macColima = platformFacts{
		GOOS: "darwin", GOARCH: "arm64", MacVersion: "15.1", Brew: "/opt/homebrew/bin/brew", Root: "/Users/di/w",
		Docker: "/opt/homebrew/Cellar/docker/28.0.1/bin/docker", DockerCtx: "colima", DockerOS: "Ubuntu 24.04.1 LTS", DockerName: "colima",
	}
	macColimaStopped = platformFacts{
		GOOS: "darwin", GOARCH: "arm64", MacVersion: "15.1", Brew: "/opt/homebrew/bin/brew", Root: "/Users/di/w",
		Docker: "/opt/homebrew/Cellar/docker/28.0.1/bin/docker", DockerCtx: "colima",
		DockerErr: "Cannot connect to the Docker daemon at unix:///Users/di/.colima/default/docker.sock. Is the docker daemon running?",
	}
	wslOnDriveCDesktop = platformFacts{
		GOOS: "linux", GOARCH: "amd64", Root: "/mnt/c/Users/ed/operator-workshop", OSRelease: "Ubuntu 24.04.1 LTS",
		ProcVersion: "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) (gcc (GCC) 11.2.0) #1 SMP",
		Docker:      "/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", DockerCtx: "default",
		DockerErr: "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
	}
	wslHomeDesktopRunning = platformFacts{
		GOOS: "linux", GOARCH: "amd64", Root: "/home/ed/operator-workshop", OSRelease: "Ubuntu 24.04.1 LTS",
		ProcVersion: "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) (gcc (GCC) 11.2.0) #1 SMP",
		Docker:      "/mnt/wsl/docker-desktop/cli-tools/usr/bin/docker", DockerCtx: "default", DockerOS: "Docker Desktop", DockerName: "docker-desktop",
	}
	wsl1 = platformFacts{
		GOOS: "linux", GOARCH: "amd64", Root: "/home/fi/w", OSRelease: "Ubuntu 20.04.6 LTS",
		ProcVersion: "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #1237-Microsoft",
	}
	linuxEngine = platformFacts{
		GOOS: "linux", GOARCH: "amd64", Root: "/home/gu/w", OSRelease: "Fedora Linux 41 (Workstation Edition)",
		ProcVersion: "Linux version 6.11.4-301.fc41.x86_64 (mockbuild@6a2f6e4e0f4c4e0b)",
		Docker:      "/usr/bin/docker", DockerCtx: "default",
		DockerErr: "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock",
	}
)

// The advice a platform gives: every fix the doctor may print there.
func allAdvice(p platform) string {
	s := []string{p.describe(), p.installGo("1.26.0"), p.startDocker(), p.permitDocker(), p.installDocker(), p.freeDisk()}
	for _, a := range p.platformAdvice() {
		s = append(s, a.level+" "+a.text+" "+a.fix)
	}
	return strings.Join(s, "\n")
}

// The doctor names each platform first, and each fix it prints fits that platform: a
// Mac is told of Homebrew or go.dev's macOS package for its chip, and of Docker Desktop or
// colima; WSL of Windows' Docker Desktop and of the Windows drive; Linux of systemctl and
// the docker group. No platform gets another's commands.
func TestDoctorAdviceFitsThePlatform(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts platformFacts
		// what the first line says, and what the advice must and must never say
		describe    string
		want, never []string
		docker      string
		advice      []string // the levels of platformAdvice
	}{
		{
			name: "Apple silicon, Homebrew, Docker Desktop stopped", facts: macAppleSiliconBrewDesktop,
			describe: "macOS 15.1 on Apple silicon, with Homebrew (/opt/homebrew/bin/brew), arm64; Docker: Docker Desktop",
			want:     []string{"brew install go", "open Docker Desktop (open -a Docker)", "docker system prune"},
			never:    []string{"systemctl", "usermod", "linux-", "WSL"},
			docker:   dockerDesktop,
		},
		{
			name: "Intel Mac, its own tools, no Docker", facts: macIntelStock,
			describe: "macOS 14.6 on an Intel Mac, with its own tools (no Homebrew), amd64",
			want:     []string{"macOS amd64 (Intel) package of Go 1.26.0 or newer from https://go.dev/dl/", "Docker Desktop (https://"},
			never:    []string{"brew install", "systemctl", "usermod", "linux-", "arm64", "colima"},
			docker:   dockerNone,
		},
		{
			name: "Apple silicon, an Intel go under Rosetta", facts: macRosetta,
			describe: "macOS 15.1 on Apple silicon, with Homebrew (/usr/local/bin/brew), amd64",
			want:     []string{"Rosetta 2", "arm64 (Apple silicon) package", "go.dev/dl"},
			never:    []string{"brew install go", "systemctl", "linux-"},
			advice:   []string{levelWarn},
		},
		{
			name: "Apple silicon, colima running", facts: macColima,
			describe: "macOS 15.1 on Apple silicon, with Homebrew (/opt/homebrew/bin/brew), arm64; Docker: colima",
			want:     []string{"colima start", "brew install go"},
			never:    []string{"systemctl", "usermod", "open Docker Desktop"},
			docker:   dockerColima,
		},
		{
			name: "Apple silicon, colima stopped", facts: macColimaStopped,
			describe: "; Docker: colima", want: []string{"colima start"}, never: []string{"open Docker Desktop", "systemctl"},
			docker: dockerColima,
		},
		{
			name: "WSL 2 on drive C, Docker Desktop stopped", facts: wslOnDriveCDesktop,
			describe: "Windows, WSL 2 (Ubuntu 24.04.1 LTS), amd64; Docker: Docker Desktop",
			want: []string{"on the Windows drive /mnt/c", "clone the workshop into your Linux home",
				"open Docker Desktop in Windows", "WSL integration", "in WSL, not in Windows: install the linux-amd64 archive"},
			never:  []string{"brew", "systemctl", "open -a", "usermod", "macOS"},
			docker: dockerDesktop,
			advice: []string{levelWarn},
		},
		{
			name: "WSL 2 in the Linux home, Docker Desktop running", facts: wslHomeDesktopRunning,
			describe: "Windows, WSL 2 (Ubuntu 24.04.1 LTS), amd64; Docker: Docker Desktop",
			want:     []string{"WSL integration"},
			never:    []string{"/mnt/c", "brew", "systemctl", "open -a"},
			docker:   dockerDesktop,
		},
		{
			name: "WSL 1", facts: wsl1,
			describe: "Windows, WSL 1 (Ubuntu 20.04.6 LTS), amd64",
			want:     []string{"wsl --set-version"},
			never:    []string{"brew", "open -a"},
			advice:   []string{levelProblem},
		},
		{
			name: "Linux, Docker Engine the user may not use", facts: linuxEngine,
			describe: "Linux (Fedora Linux 41 (Workstation Edition)), amd64; Docker: Docker Engine",
			want:     []string{"sudo systemctl start docker", "sudo usermod -aG docker $USER", "linux-amd64 archive", "docs.docker.com/engine/install"},
			never:    []string{"brew", "Docker Desktop", "open -a", "WSL", "colima"},
			docker:   dockerEngine,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := platformOf(tc.facts)
			if got := p.describe(); !strings.Contains(got, tc.describe) {
				t.Errorf("describe() = %q, want it to contain %q", got, tc.describe)
			}
			if tc.docker != "" && p.docker != tc.docker {
				t.Errorf("docker = %q, want %q", p.docker, tc.docker)
			}
			all := allAdvice(p)
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("the advice does not say %q:\n%s", w, all)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(all, n) {
					t.Errorf("the advice says %q, which does not fit the platform:\n%s", n, all)
				}
			}
			var levels []string
			for _, a := range p.platformAdvice() {
				levels = append(levels, a.level)
			}
			if strings.Join(levels, " ") != strings.Join(tc.advice, " ") {
				t.Errorf("platformAdvice levels = %q, want %q", levels, tc.advice)
			}
		})
	}
}
