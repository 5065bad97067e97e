#!/usr/bin/env bash
# Runs lesson N's check (scripts/check.sh) again whenever you save a file of the lesson
# (make watch-N), until you stop it with Ctrl-C. When every task is done it says what
# comes next. Files are polled once a second: no file-watching tool is needed.
#
# Usage: scripts/watch.sh N   (ALL=1, V=1 and TESTENV_VERBOSE=1 work as for make check-N)
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

n=${1:?usage: $0 N}
dir=$(stage_dir lessons "$n")
stamp="$CACHE/check/watch-$(basename "$dir").stamp"
mkdir -p "$(dirname "$stamp")"

while :; do
  touch "$stamp"
  clear 2>/dev/null || true
  if "$ROOT/scripts/check.sh" "$n"; then
    say "All done. Next: make lesson-$n shows your controller at work on a cluster."
  fi
  say "Watching lessons/$(basename "$dir") for saved files (Ctrl-C stops)"
  until [[ -n $(edited_since "$dir" "$stamp") ]]; do sleep 1; done
done
