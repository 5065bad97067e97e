#!/usr/bin/env bash
# Prints a hint for a task of lesson N (make hint-N T=k): the first time its first hint,
# each time after one more, up to the last. Without T, the task is the first one your last
# make check-N found not done. The hints come from lessons/index.json; which ones you have
# seen is remembered in .cache/hints (make reset-N forgets them).
#
# Usage: scripts/hint.sh N [TASK]
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

n=${1:?usage: $0 N [TASK]}
dir=$(stage_dir lessons "$n")
task=${2:-}
[[ -z $task || $task =~ ^[0-9]+$ ]] || die "T is a task's number, as in TODO(3): make hint-$((10#$n)) T=3 (got '$task')"
"$(tool_path todos)" hint -index "$ROOT/lessons/index.json" -lesson "$((10#$n))" ${task:+-task "$task"} \
  -seen "$CACHE/hints" -result "$CACHE/check/$(basename "$dir").result"
