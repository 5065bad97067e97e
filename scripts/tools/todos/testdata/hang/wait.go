// Package hang is a lesson whose code never returns, for todos' tests: go test's
// -timeout stops it.
package hang

// Wait waits for a value nobody sends.
func Wait(c chan int) int { return <-c }
