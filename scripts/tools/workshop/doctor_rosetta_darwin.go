package main

import "syscall"

// rosettaTranslated says whether this process runs under Rosetta 2: Apple's
// sysctl.proc_translated (what `sysctl -n sysctl.proc_translated` prints) is 1 for a
// translated process, 0 for a native one, and missing on Intel Macs. It is asked of this
// process itself, whose architecture is that of the go that built it.
func rosettaTranslated() bool {
	v, err := syscall.Sysctl("sysctl.proc_translated")
	// An int: its first byte, little-endian, is 1 or 0.
	return err == nil && len(v) > 0 && v[0] == 1
}
