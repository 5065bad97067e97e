package testenv

import "syscall"

// The Linux kernel kills a process when its parent dies, if it asked (orphans_unix.go).
const kernelKillsOrphans = true

// dieWithParent asks the kernel to kill this process when its parent (the thread that
// started it) ends.
func dieWithParent() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		return errno
	}
	return nil
}
