# shellcheck shell=bash
# Fuzzing for scripts/test.sh. Source it after common.sh.

# fuzz_target TIME TARGET PACKAGE searches for TIME for inputs that fail the fuzz target
# TARGET of PACKAGE (go test -fuzz), with one worker: scripts/test.sh runs two targets at
# a time. An input that fails is saved under the package's testdata/fuzz, and fails the
# run.
#
# Go 1.26's fuzzing coordinator can report the end of its own -fuzztime as a failure of
# the target: "--- FAIL: TARGET" followed only by "context deadline exceeded", with no
# input written (golang/go#75804, fixed in Go 1.27). That ending is said, and passes:
# the search ran its time and found nothing. Any other failure fails.
fuzz_target() {
  local log status
  log=$(mktemp)
  set +e
  go test -run '^$' -fuzz "^$2\$" -fuzztime "$1" -parallel 1 "$3" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
  set -e
  if ((status != 0)) && ! grep -q 'Failing input written' "$log" &&
    [[ $(grep -c -- '^--- FAIL' "$log") == 1 ]] &&
    grep -A1 -- "^--- FAIL: $2 " "$log" | tail -1 | grep -qx '    context deadline exceeded'; then
    warn "$2: Go's fuzzing reported the end of -fuzztime as a failure (golang/go#75804, fixed in Go 1.27); no input failed"
    status=0
  fi
  rm -f "$log"
  return "$status"
}
