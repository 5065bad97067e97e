#!/usr/bin/env bash
# Fails when anything derived is out of date: version pins, code formatting, what
# controller-gen generates for the solutions, and the lessons generated from them.
# Run it on a clean checkout (CI does): it regenerates the solutions' files in place.
#
# Usage: scripts/verify.sh
source "$(dirname "$0")/lib/common.sh"
cd "$ROOT"

"$ROOT/scripts/pins.sh" check

unformatted=$(gofmt -l shared solutions lessons scripts)
[[ -z $unformatted ]] || die "gofmt would change these files (run gofmt -w):"$'\n'"$unformatted"
say "Every Go file is formatted"

say "Regenerating the solutions' DeepCopy, CRDs and RBAC"
"$ROOT/scripts/generate.sh" solutions/*/
if git rev-parse --git-dir >/dev/null 2>&1; then
  # What generation changed in the working tree, or added without git knowing it.
  changed=$(git diff --name-only -- solutions; git ls-files --others --exclude-standard -- solutions)
  [[ -z $changed ]] || die "generated files of the solutions are out of date; commit these:"$'\n'"$changed"
  say "The solutions' generated files are up to date"
else
  warn "not a git checkout: cannot tell whether the generated files changed"
fi

"$ROOT/scripts/lessons.sh" check
