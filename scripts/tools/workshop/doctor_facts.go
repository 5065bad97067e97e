package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// gatherPlatformFacts reads the facts of this machine: files, and commands that answer
// quickly (docker info waits for at most 15 seconds).
func gatherPlatformFacts(ctx context.Context, root string) platformFacts {
	f := platformFacts{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, Translated: rosettaTranslated()}
	f.Root, _ = filepath.Abs(root)
	if runtime.GOOS == "darwin" {
		f.MacVersion, _, _ = runFor(ctx, 5*time.Second, "", nil, "sw_vers", "-productVersion")
		f.Brew = findBrew()
	}
	if b, err := os.ReadFile("/proc/version"); err == nil {
		f.ProcVersion = strings.TrimSpace(string(b))
	}
	f.OSRelease = prettyName("/etc/os-release")
	if path, err := exec.LookPath("docker"); err == nil {
		f.Docker = path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			f.Docker = real
		}
		f.DockerCtx, _, _ = runFor(ctx, 5*time.Second, "", nil, "docker", "context", "show")
		f.DockerOS, f.DockerName, f.DockerErr = dockerInfo(ctx)
	}
	return f
}

// findBrew returns the path of Homebrew's brew: on PATH, or where its installer puts
// it (/opt/homebrew on Apple silicon, /usr/local on Intel) before the shell is set up.
func findBrew() string {
	if path, err := exec.LookPath("brew"); err == nil {
		return path
	}
	for _, path := range []string{"/opt/homebrew/bin/brew", "/usr/local/bin/brew"} {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	return ""
}

// prettyName returns PRETTY_NAME of an os-release file ("Ubuntu 24.04.1 LTS"), or "".
func prettyName(name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// dockerInfo asks the Docker daemon what it runs on, as JSON: its OperatingSystem
// ("Docker Desktop", "Ubuntu 24.04.1 LTS") and Name (its host: colima's VM is
// "colima"); or says why it could not.
func dockerInfo(ctx context.Context) (osName, name, failure string) {
	stdout, stderr, err := runFor(ctx, 15*time.Second, "", nil, "docker", "info", "--format", "{{json .}}")
	var info struct {
		OperatingSystem string
		Name            string
		ServerErrors    []string
	}
	_ = json.Unmarshal([]byte(stdout), &info)
	if err != nil || len(info.ServerErrors) > 0 || info.OperatingSystem == "" {
		failure = strings.TrimSpace(strings.Join(append(info.ServerErrors, stderr), "\n"))
		if failure == "" && err != nil {
			failure = err.Error()
		}
		return "", "", failure
	}
	return info.OperatingSystem, info.Name, ""
}

// runFor runs a command in dir (or here) with env added to this process's, for at most
// timeout, and returns its output and error output, trimmed. A command that outlives
// its timeout is killed; children that keep its output open are given a second more,
// then left (cmd.WaitDelay), so that no check hangs the doctor.
func runFor(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) (stdout, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.WaitDelay = time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = ctx.Err()
	}
	return strings.TrimSpace(out.String()), strings.TrimSpace(errOut.String()), err
}
