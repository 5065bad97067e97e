#!/usr/bin/env bash
# Prints every lesson with how far you are (make progress): not started (the lesson's
# files are as cloned), the tasks done at your last make check-N, or done (every task
# done and nothing changed since); then the next step.
#
# Usage: scripts/progress.sh
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"
cd "$ROOT"

git rev-parse --git-dir >/dev/null 2>&1 || warn "not a git checkout: cannot tell untouched lessons from started ones"

next=
for dir in lessons/[0-9][0-9]-*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  n=$((10#${name%%-*}))
  result="$CACHE/check/$name.result"
  tasks=$({ grep -rhoE 'TODO\([0-9]+\)' "$dir" || true; } | sort -u | wc -l)
  if git rev-parse --git-dir >/dev/null 2>&1 && [[ -z $(git status --porcelain -- "$dir") ]] && [[ ! -f $result ]]; then
    state="not started ($tasks tasks)"
    [[ -n $next ]] || next="read docs/lesson-$(printf '%02d' "$n").md, then make check-$n"
  elif [[ ! -f $result ]]; then
    state="started, not checked yet"
    [[ -n $next ]] || next="make check-$n"
  else
    read -r done total failed first <"$result"
    if [[ -n $(edited_since "$dir" "$result") ]]; then
      state="$done of $total tasks done at the last check; changed since"
      [[ -n $next ]] || next="make check-$n"
    elif ((failed == 0 && done == total)); then
      state="done"
    else
      state="$done of $total tasks done; next: TODO($first)"
      [[ -n $next ]] || next="make check-$n (or make watch-$n) and TODO($first); make hint-$n gives a hint"
    fi
  fi
  printf '  %-28s %s\n' "$name" "$state"
done
if [[ -n $next ]]; then say "Next: $next"; else say "Every lesson is done."; fi
