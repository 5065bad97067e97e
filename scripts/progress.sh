#!/usr/bin/env bash
# Prints every lesson with how far you are (make progress): not started (the lesson's
# files are as cloned), the result of your last make check-N, or done (every test passed
# and nothing changed since); then the next step.
#
# Usage: scripts/progress.sh
source "$(dirname "$0")/lib/common.sh"
cd "$ROOT"

git rev-parse --git-dir >/dev/null 2>&1 || warn "not a git checkout: cannot tell untouched lessons from started ones"

next=
for dir in lessons/[0-9][0-9]-*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  n=$((10#${name%%-*}))
  result="$CACHE/check/$name.result"
  todos=$(grep -r --include='*.go' -c 'TODO' "$dir" | awk -F: '{s += $2} END {print s + 0}')
  if git rev-parse --git-dir >/dev/null 2>&1 && [[ -z $(git status --porcelain -- "$dir") ]] && [[ ! -f $result ]]; then
    state="not started ($todos TODOs)"
    [[ -n $next ]] || next="read docs/lesson-$(printf '%02d' "$n").md, then make check-$n"
  elif [[ ! -f $result ]]; then
    state="started, not checked yet"
    [[ -n $next ]] || next="make check-$n"
  else
    read -r passed total status <"$result"
    if [[ -n $(find "$dir" -name '*.go' ! -name 'zz_generated*' -newer "$result" -print -quit) ]]; then
      state="$passed of $total tests passed at the last check; changed since"
      [[ -n $next ]] || next="make check-$n"
    elif ((status == 0)); then
      state="done"
    else
      state="$passed of $total tests pass"
      [[ -n $next ]] || next="make check-$n (or make watch-$n), then fix the first failure"
    fi
  fi
  printf '  %-28s %s\n' "$name" "$state"
done
if [[ -n $next ]]; then say "Next: $next"; else say "Every lesson is done."; fi
