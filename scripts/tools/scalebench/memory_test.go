package main

import (
	"strings"
	"testing"
)

func TestParseManagersReadsNamesAndURLs(t *testing.T) {
	got, err := parseManagers("own=http://127.0.0.1:28090/metrics,all (caches every pod)=http://127.0.0.1:28091/metrics")
	if err != nil {
		t.Fatal(err)
	}
	want := []manager{
		{name: "own", metricsURL: "http://127.0.0.1:28090/metrics"},
		{name: "all (caches every pod)", metricsURL: "http://127.0.0.1:28091/metrics"},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestParseManagersNamesTheBadPair(t *testing.T) {
	for _, bad := range []string{"08", "=http://x/metrics", "08=127.0.0.1:28090"} {
		_, err := parseManagers("ok=http://x/metrics," + bad)
		if err == nil || !strings.Contains(err.Error(), "-managers") || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: got error %v, want one naming -managers and the pair", bad, err)
		}
	}
}
