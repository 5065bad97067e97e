package main

import (
	"math"
	"strings"
	"testing"
)

// Only the records allocated under client-go's informers and the watcher that decodes
// what they watch count, each scaled by the
// sampling rate of the header as pprof scales it.
func TestCacheHeapSumsTheRecordsOfTheInformers(t *testing.T) {
	profile := strings.Join([]string{
		"heap profile: 3: 3072 [9: 9216] @ heap/1048576",
		"2: 2048 [4: 4096] @ 0x1 0x2",
		"#\t0x1\tk8s.io/apimachinery/pkg/runtime.Decode+0x10\t/x/codec.go:1",
		"#\t0x2\tk8s.io/client-go/tools/cache.(*Reflector).watch+0x20\t/x/reflector.go:2",
		"",
		"1: 1024 [5: 5120] @ 0x3",
		"#\t0x3\tmain.main+0x30\t/x/main.go:3",
		"",
		"1: 4096 [1: 4096] @ 0x4",
		"#\t0x4\tk8s.io/apimachinery/pkg/watch.(*StreamWatcher).receive+0x40\t/x/streamwatcher.go:4",
		"",
		"# runtime.MemStats",
		"# Alloc = 1",
	}, "\n")
	got, err := cacheHeap(strings.NewReader(profile))
	if err != nil {
		t.Fatal(err)
	}
	want := 2048/(1-math.Exp(-1024.0/524288)) + 4096/(1-math.Exp(-4096.0/524288))
	if math.Abs(got-want) > 1 {
		t.Errorf("cacheHeap = %.0f bytes, want %.0f: the records of the reflector and the watcher alone, scaled", got, want)
	}
	if _, err := cacheHeap(strings.NewReader("not a profile\n")); err == nil {
		t.Error("cacheHeap of a text without a header: no error, want one")
	}
}
