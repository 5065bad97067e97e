#!/usr/bin/env bash
# Runs lesson N's tests against the learner's code: the very tests solution N passes.
# The CRDs are regenerated first, since the lesson's markers are the learner's too.
#
# Usage: scripts/check.sh N          (TESTENV_VERBOSE=1 shows the manager's logs)
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

dir=$(stage_dir lessons "${1:?usage: $0 N}")
name=$(basename "$dir")
say "Regenerating the CRDs of lessons/$name from your API types"
"$ROOT/scripts/generate.sh" "$dir"
say "Running the tests of lessons/$name"
if (cd "$dir" && go test -count=1 ./...); then
  say "Every test of lessons/$name passes. Compare with the solution (make diff-$1), then watch it work: make lesson-$1"
else
  warn "Some tests of lessons/$name fail. Start with the first failure above; each one says what was expected."
  warn "TESTENV_VERBOSE=1 make check-$1 adds your controller's logs; docs/lesson-$(printf '%02d' "$((10#$1))").md has hints."
  exit 1
fi
