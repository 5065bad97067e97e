//go:build unix && !linux

package testenv

import "errors"

// No other unix kernel kills a process when its parent dies (macOS has no
// PR_SET_PDEATHSIG): the control plane runs under a supervisor (orphans_unix.go).
const kernelKillsOrphans = false

func dieWithParent() error {
	return errors.New("this kernel cannot kill a process with its parent")
}
