// Command lessongen makes a lesson from its solution. The solution is the source: every
// part the learner writes is marked in it, and the lesson is the same module with each
// marked part replaced by a TODO and, where the code must still compile, a stub.
//
//	//lesson:todo Say what to write and where to look.     -> // TODO: Say what to write ...
//	//lesson:todo A second line of the same TODO.           -> // A second line ...
//	//lesson:stub return nil                                -> return nil
//	...the solution's code...                               -> (dropped)
//	//lesson:end
//
// Import paths and the module path change from solutions/NN-name to lessons/NN-name;
// imports the stubs no longer use are removed. Everything else is copied as it is.
//
// Usage: lessongen -from solutions/01-imoocpod -to lessons/01-imoocpod
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	from := flag.String("from", "", "the solution's folder")
	to := flag.String("to", "", "the lesson's folder, replaced entirely")
	flag.Parse()
	if *from == "" || *to == "" {
		fmt.Fprintln(os.Stderr, "usage: lessongen -from solutions/NN-name -to lessons/NN-name")
		os.Exit(2)
	}
	if err := generate(*from, *to); err != nil {
		fmt.Fprintf(os.Stderr, "lessongen: %v\n", err)
		os.Exit(1)
	}
}
