#!/usr/bin/env bash
# Lessons are generated from their solutions (see scripts/tools/lessongen): a solution
# marks what the learner writes, and its lesson is the same module with those parts
# replaced by TODOs. Generated lessons are committed, like generated code.
#
# Usage:
#   scripts/lessons.sh write [NN...]   regenerate lessons NN (default: all), in place
#   scripts/lessons.sh check           fail if any committed lesson differs from what
#                                      its solution generates (touches nothing)
source "$(dirname "$0")/lib/common.sh"

# solution_dirs [NN...] prints the solution folders for the numbers given, or all.
solution_dirs() {
  if (($# == 0)); then
    ls -d "$ROOT"/solutions/[0-9][0-9]-*/
    return
  fi
  local n dir
  for n in "$@"; do
    n=$(printf '%02d' "$((10#$n))")
    dir=$(ls -d "$ROOT"/solutions/"$n"-*/ 2>/dev/null) || die "no solution $n in solutions/"
    echo "$dir"
  done
}

# generate_into TOP SOLUTION_DIR writes the lesson of SOLUTION_DIR under TOP/lessons.
generate_into() {
  local top=$1 solution=${2%/}
  local lesson
  lesson="$top/lessons/$(basename "$solution")"
  (cd "$ROOT/scripts/tools" && GOWORK=off go run ./lessongen -from "$solution" -to "$lesson")
  # The lesson's API may lack markers the solution has: its CRDs are its own.
  "$ROOT/scripts/generate.sh" "$lesson"
}

write() {
  local solution
  for solution in $(solution_dirs "$@"); do
    say "Generating lessons/$(basename "$solution") from solutions/$(basename "$solution")"
    generate_into "$ROOT" "$solution"
  done
}

check() {
  local solution name bad=0
  CHECK_DIR=$(mktemp -d)
  trap 'rm -rf "$CHECK_DIR"' EXIT
  local tmp=$CHECK_DIR
  ln -s "$ROOT/shared" "$tmp/shared"
  for solution in $(solution_dirs); do
    name=$(basename "$solution")
    generate_into "$tmp" "$solution"
    if ! diff -r "$tmp/lessons/$name" "$ROOT/lessons/$name" >/dev/null 2>&1; then
      warn "lessons/$name differs from what solutions/$name generates:"
      diff -r "$tmp/lessons/$name" "$ROOT/lessons/$name" | head -20 >&2 || true
      bad=1
    fi
  done
  ((bad == 0)) || die "lessons are out of date: run \`make lessons\` and commit the result"
  say "Every lesson matches its solution"
}

case ${1:-} in
  write) shift; write "$@" ;;
  check) check ;;
  *) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
