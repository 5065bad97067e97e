//go:build !linux

package main

import "os/exec"

func inGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// stopsEarly: go test runs to its end, since a killed test binary would leave its
// control plane running here.
const stopsEarly = false
