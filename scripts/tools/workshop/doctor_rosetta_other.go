//go:build !darwin

package main

// rosettaTranslated: Rosetta 2 exists on macOS only.
func rosettaTranslated() bool { return false }
