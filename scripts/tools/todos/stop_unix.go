//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// inGroup puts go test in a process group of its own, which its test binaries join.
func inGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills go test and its test binaries. Their control planes, in process groups
// of their own, die with them (shared/testenv): on Linux the kernel kills them, on macOS
// their supervisors do.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// stopsEarly: go test may be stopped at the first failure, as the control planes of the
// test binaries it kills die with them (shared/testenv).
const stopsEarly = true
