#!/usr/bin/env bash
# Runs lesson N's tests against the learner's code: the very tests solution N passes,
# and prints the lesson's checklist: each task (a TODO(k) in the code) done, failing or
# not run yet. A task is done when the tests its solution names (lessons/index.json) pass.
# The tasks' tests run first, alone, and stop at the first failure, which is the task to
# work on (go test is stopped then, whatever other packages it still runs): its failure
# is shown in a line or two, with the command for a hint. Once every task is done, the
# solution's other tests run too: the behaviour the lesson keeps from earlier lessons.
# The CRDs are regenerated first, since the lesson's markers are the learner's too.
#
# Usage: scripts/check.sh N
#   ALL=1               run every test, not only up to the first failure
#   TESTENV_VERBOSE=1   show the manager's logs too
#   V=1                 show go test's whole output
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"
source "$ROOT/scripts/lib/symptoms.sh"
source "$ROOT/scripts/lib/processes.sh"

n=${1:?usage: $0 N}
dir=$(stage_dir lessons "$n")
name=$(basename "$dir")
n=$((10#$n))
generate_lesson "$dir"
todos=$(tool_path todos)

# A test that never returns is stopped after the lesson's timeout (lessons/index.json,
# a few times its slowest green run), and shown failing where it is stuck. The test
# binaries are linked without debug information (-ldflags=-w): every check links them
# anew, and a failure's stack needs none of it.
flags=(-count=1 -json -ldflags=-w -timeout "$("$todos" timeout -index "$ROOT/lessons/index.json" -lesson "$n" ${ALL:+-all})")
stop=()
[[ -n ${ALL:-} ]] || flags+=(-failfast) stop=(-stop)
say "Running the tests of lessons/$name$([[ -n ${ALL:-} ]] || echo ', up to the first failure')"
log="$CACHE/check/$name.log"
mkdir -p "$(dirname "$log")"
status=0
# On Linux a test binary that ends without stopping its control plane takes it along
# (shared/testenv); should anything outlive the tests all the same, it is stopped here.
mark_processes check
# todos runs go test, and stops it once the first failure is settled (the first task not
# done is failing): the other packages' tests can only decide later tasks. It names the
# packages: those of the tasks' tests, then, once they all pass, those of the others.
# A stopped go test leaves its temporary files (its build folder, the control plane's
# data: over 100 MB a run) behind: they go in a folder of their own, removed after.
tmp="$CACHE/check/$name.tmp"
rm -rf "$tmp" && mkdir -p "$tmp"
(cd "$dir" && TMPDIR="$tmp" "$todos" check -index "$ROOT/lessons/index.json" -lesson "$n" -log "$log" \
  -failures "$CACHE/check/$name.failures" -result "$CACHE/check/$name.result" ${V:+-v} "${stop[@]}" \
  -- go test "${flags[@]}") || status=$?
stop_survivors >/dev/null
rm -rf "$tmp"
((status != 2)) || die "could not read the test run (see above)"

# The result: tasks done, tasks in all, whether go test failed, the first task not done,
# whether a failure was shown.
read -r done total failed _ shown <"$CACHE/check/$name.result"
if ((failed == 0 && done == total)); then
  say "All $total tasks of lessons/$name are done. Compare with the solution (make diff-$n), then watch it work: make lesson-$n"
else
  # Only the failure shown: a passing test may provoke a known symptom on purpose, and a
  # failing test's manager may log one that is no news.
  explain_symptoms "$CACHE/check/$name.failures"
  if ((${shown:-0} == 1)); then
    warn "$done of $total tasks done; the first failure, above, says what to fix next. (Full output: ${log#"$ROOT"/})"
  else
    warn "$done of $total tasks done; go test failed without saying which test: its full output is in ${log#"$ROOT"/}"
  fi
  warn "TESTENV_VERBOSE=1 make check-$n adds your controller's logs; docs/lesson-$(printf '%02d' "$n").md explains each task."
  exit 1
fi
