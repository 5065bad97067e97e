// Command stopat drives a headless Delve through its JSON-RPC API, as an editor does: it
// sets a breakpoint on a function, says so, waits until the program stops there, prints
// where it stopped and the value of an expression there as JSON, then clears the
// breakpoint and lets the program run on. scripts/walkthroughs/17.sh proves with it that
// `make debug-17` stops the manager's Reconcile with the request's name.
//
// Usage: stopat -addr 127.0.0.1:2345 -function PKG.(*T).Reconcile -cond 'req.Name == "x"'
//
//	-eval req.Name -ready FILE
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/go-delve/delve/service/api"
	"github.com/go-delve/delve/service/rpc2"
)

// A stop is what stopat prints: where the program stopped, and the expression's value.
type stop struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Eval     string `json:"eval"`
	Value    string `json:"value"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:2345", "the address Delve listens on (dlv --headless --listen)")
	function := flag.String("function", "", "the function to stop in, as Delve names it: PACKAGE.(*TYPE).METHOD")
	cond := flag.String("cond", "", "stop only when this Go expression holds there (empty: always)")
	eval := flag.String("eval", "", "the expression whose value to print once stopped")
	ready := flag.String("ready", "", "a file written once the breakpoint is set, for a script to wait on")
	wait := flag.Duration("timeout", 60*time.Second, "how long to wait for the program to stop there")
	flag.Parse()
	if err := run(*addr, *function, *cond, *eval, *ready, *wait); err != nil {
		fmt.Fprintln(os.Stderr, "stopat:", err)
		os.Exit(1)
	}
}

func run(addr, function, cond, eval, ready string, wait time.Duration) error {
	if function == "" {
		return errors.New("-function is required: the function to stop in")
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("connecting to Delve at %s (is make debug-17 running?): %w", addr, err)
	}
	client := rpc2.NewClientFromConn(conn)
	// A breakpoint is set on a stopped program: halt it, set it, and let it run on.
	if _, err := client.Halt(); err != nil {
		return fmt.Errorf("halting the program: %w", err)
	}
	args := api.LoadConfig{FollowPointers: true, MaxVariableRecurse: 1, MaxStringLen: 256, MaxArrayValues: 16, MaxStructFields: -1}
	bp, err := client.CreateBreakpoint(&api.Breakpoint{FunctionName: function, Cond: cond, LoadArgs: &args})
	if err != nil {
		_ = client.Disconnect(true)
		return fmt.Errorf("setting a breakpoint on %s: %w", function, err)
	}
	states := client.Continue()
	if ready != "" {
		if err := os.WriteFile(ready, []byte(fmt.Sprintf("%d\n", bp.ID)), 0o644); err != nil {
			return err
		}
	}
	var state *api.DebuggerState
	select {
	case state = <-states:
	case <-time.After(wait):
		// Halting ends the pending Continue; the program runs on once the breakpoint goes.
		_, _ = client.Halt()
		<-states
		_, _ = client.ClearBreakpoint(bp.ID)
		_ = client.Disconnect(true)
		return fmt.Errorf("the program did not stop in %s within %s", function, wait)
	}
	if state.Err != nil {
		return fmt.Errorf("continuing: %w", state.Err)
	}
	if state.CurrentThread == nil || state.CurrentThread.Breakpoint == nil || state.CurrentThread.Breakpoint.ID != bp.ID {
		_, _ = client.ClearBreakpoint(bp.ID)
		_ = client.Disconnect(true)
		return errors.New("the program stopped elsewhere than at the breakpoint")
	}
	s := stop{File: state.CurrentThread.File, Line: state.CurrentThread.Line, Eval: eval}
	if state.CurrentThread.Function != nil {
		s.Function = state.CurrentThread.Function.Name()
	}
	if eval != "" {
		v, err := client.EvalVariable(api.EvalScope{GoroutineID: -1}, eval, args)
		if err != nil {
			return fmt.Errorf("evaluating %s: %w", eval, err)
		}
		s.Value = v.Value
	}
	if _, err := client.ClearBreakpoint(bp.ID); err != nil {
		return fmt.Errorf("clearing the breakpoint: %w", err)
	}
	// Disconnecting with true lets the program run on: the manager serves again.
	if err := client.Disconnect(true); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(s)
}
