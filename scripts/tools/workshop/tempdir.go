package main

import (
	"errors"
	"fmt"
	"os"
)

// removeTemp removes dir, a folder of temporary files that one command made for itself,
// and adds a failure to *err. A folder left behind holds a stage's build and a control
// plane's data, hundreds of megabytes each run: the person should hear of it, even when
// the command failed for another reason first. Use it deferred, with a named error result.
func removeTemp(dir string, err *error) {
	if rmErr := os.RemoveAll(dir); rmErr != nil {
		*err = errors.Join(*err, fmt.Errorf("could not remove the temporary folder %s: %w", dir, rmErr))
	}
}
