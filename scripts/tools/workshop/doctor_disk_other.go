//go:build !(darwin || linux)

package main

import (
	"fmt"
	"runtime"
)

// freeSpace: the workshop runs on macOS and Linux (WSL 2 is Linux) only.
func freeSpace(path string) (uint64, string, error) {
	return 0, "", fmt.Errorf("free disk space is not measured on %s", runtime.GOOS)
}
