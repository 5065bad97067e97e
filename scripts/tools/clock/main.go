// Command clock prints the milliseconds since the Unix epoch, for the scripts that time
// what they do (now_ms in scripts/lib/common.sh). A stock Mac's date has no %N (BSD date
// prints a literal N) and its bash 3.2 no $EPOCHREALTIME.
//
// Usage: clock
package main

import (
	"fmt"
	"time"
)

func main() {
	fmt.Println(time.Now().UnixMilli())
}
