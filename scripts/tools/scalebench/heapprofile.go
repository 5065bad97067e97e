package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The informers' code: what is allocated under one of its functions and still in use
// is what the informers' caches hold. The reflector lists and transforms under
// cachePackage; what a watch brings is decoded by the watcher's own goroutine
// (watch.StreamWatcher), under watchPackage.
const (
	cachePackage = "k8s.io/client-go/tools/cache."
	watchPackage = "k8s.io/apimachinery/pkg/watch."
)

// readCacheHeap reads the heap profile a manager serves at pprofURL (its
// --pprof-bind-address, /debug/pprof/heap), after a garbage collection, and returns the
// bytes in use that were allocated under cachePackage or watchPackage.
func readCacheHeap(ctx context.Context, pprofURL string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(pprofURL, "/")+"/debug/pprof/heap?gc=1&debug=1", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("reading the heap profile at %s: %w", pprofURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("reading the heap profile at %s: %s", pprofURL, resp.Status)
	}
	return cacheHeap(resp.Body)
}

// cacheHeap sums the bytes in use of the records of a heap profile in the text form
// (debug=1) whose stack has a function of cachePackage or watchPackage. The profile samples one
// allocation in about every rate bytes (its header's "@ heap/2*rate"); each record is
// scaled as pprof scales it, by 1/(1-exp(-average size/rate)).
//
// A record is a line "in-use objects: in-use bytes [allocated objects: allocated bytes]
// @ addresses", then one line "#\taddress\tfunction+offset\tfile:line" per frame.
func cacheHeap(r io.Reader) (float64, error) {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	rate := 0.0
	total := 0.0
	var objects, bytes float64
	inCache := false
	flush := func() {
		if inCache && objects > 0 && bytes > 0 {
			scale := 1.0
			if rate > 1 {
				scale = 1 / (1 - math.Exp(-bytes/objects/rate))
			}
			total += bytes * scale
		}
		objects, bytes, inCache = 0, 0, false
	}
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case strings.HasPrefix(line, "heap profile:"):
			_, r, ok := strings.Cut(line, "@ heap/")
			if !ok {
				return 0, fmt.Errorf("the heap profile's header %q has no sampling rate", line)
			}
			twice, err := strconv.ParseFloat(strings.TrimSpace(r), 64)
			if err != nil {
				return 0, fmt.Errorf("the heap profile's header %q: %w", line, err)
			}
			rate = twice / 2
		case strings.HasPrefix(line, "# runtime.MemStats"):
			flush()
			return total, scanner.Err()
		case strings.HasPrefix(line, "#\t"):
			if fields := strings.Split(line, "\t"); len(fields) >= 3 && (strings.HasPrefix(fields[2], cachePackage) || strings.HasPrefix(fields[2], watchPackage)) {
				inCache = true
			}
		case strings.Contains(line, " @ "):
			flush()
			var allocObjects, allocBytes float64
			if _, err := fmt.Sscanf(line, "%g: %g [%g: %g]", &objects, &bytes, &allocObjects, &allocBytes); err != nil {
				return 0, fmt.Errorf("a record of the heap profile, %q: %w", line, err)
			}
		}
	}
	flush()
	if rate == 0 {
		return 0, fmt.Errorf("no heap profile: no header line")
	}
	return total, scanner.Err()
}
