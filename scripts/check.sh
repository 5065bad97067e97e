#!/usr/bin/env bash
# Runs lesson N's tests against the learner's code: the very tests solution N passes, in
# the order of the lesson's tasks. They stop at the first failure, which is the task to
# work on; the output is that failure alone, then how many tests pass.
# The CRDs are regenerated first, since the lesson's markers are the learner's too.
#
# Usage: scripts/check.sh N
#   ALL=1               run every test, not only up to the first failure
#   TESTENV_VERBOSE=1   show the manager's logs too
#   V=1                 show go test's whole output
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"
source "$ROOT/scripts/lib/symptoms.sh"

dir=$(stage_dir lessons "${1:?usage: $0 N}")
name=$(basename "$dir")
generate_lesson "$dir"

flags=(-count=1 -v)
[[ -n ${ALL:-} ]] || flags+=(-failfast)
say "Running the tests of lessons/$name$([[ -n ${ALL:-} ]] || echo ', up to the first failure')"
log="$CACHE/check/$name.log"
mkdir -p "$(dirname "$log")"
status=0
(cd "$dir" && go test "${flags[@]}" ./...) >"$log" 2>&1 || status=$?

# failures prints go test -v's output without the tests that passed: for each failing
# top-level test, what it printed and its FAIL line; outside tests, what go printed (build
# errors, panics), but not its per-package summary lines.
failures() {
  awk '
    /^=== RUN   [^\/]+$/ { inTest = 1; buf = ""; next }
    /^=== (RUN|PAUSE|CONT|NAME)/ { next }
    /^--- (PASS|SKIP): / { inTest = 0; buf = ""; next }
    /^--- FAIL: / { printf "%s", buf; print; inTest = 0; buf = ""; next }
    inTest { if ($0 !~ /^ +--- (PASS|SKIP): /) buf = buf $0 "\n"; next }
    /^(PASS|FAIL)$/ || /^ok  / || /^\?  / || /^FAIL\t.*s$/ { next }
    { print }
  ' "$1"
}

if [[ -n ${V:-} ]]; then cat "$log"; else failures "$log"; fi
# The tests in all, read from the test files: `go test -list` would start each package's
# TestMain, and so an API server, only to print the names.
total=$(grep -rhE --include='*_test.go' '^func Test[^(]*\([a-zA-Z_]+ \*testing\.T\)' "$dir" | wc -l)
passed=$(grep -c '^--- PASS: ' "$log" || true)
# make progress reads how this check ended: tests passed, tests in all, go test's status.
echo "$passed $total $status" >"$CACHE/check/$name.result"
if ((status == 0)); then
  say "All $passed tests of lessons/$name pass. Compare with the solution (make diff-$1), then watch it work: make lesson-$1"
else
  explain_symptoms "$log"
  warn "$passed of $total tests pass; the first failure, above, says what to fix next. (Full output: ${log#"$ROOT"/})"
  warn "TESTENV_VERBOSE=1 make check-$1 adds your controller's logs; docs/lesson-$(printf '%02d' "$((10#$1))").md has hints."
  exit 1
fi
