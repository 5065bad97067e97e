#!/usr/bin/env bash
# Writes and checks everything generated from the tracks. A track is one operator taught
# over several lessons: tracks/<name> holds its last stage, with the few markers that say
# what the earlier stages and the lessons have instead, and tracks/<name>/lessons.yaml its
# lessons' tasks (scripts/tools/lessongen says how). From them come every
# solutions/NN-name, every lessons/NN-name and lessons/index.json; scripts/generate.sh
# adds what controller-gen derives. All of it is committed, like generated code, and
# never edited by hand: edit the track and run `make generate`.
#
# Usage:
#   scripts/lessons.sh write          regenerate every solution and lesson, and the index
#   scripts/lessons.sh lesson N...    regenerate lessons N (a learner's reset: workshop reset)
#   scripts/lessons.sh check [FOLDER...]
#                                     fail if anything committed (or FOLDER, such as
#                                     solutions/01-imoocpod) differs from what the tracks
#                                     generate (touches nothing)
#   scripts/lessons.sh tracks         print each lesson: its track, folder and tasks
#   scripts/lessons.sh todos [TRACK]  solve each lesson's tasks one by one in a scratch copy:
#                                     each must turn exactly its own tests green
#   scripts/lessons.sh mistakes [TRACK]
#                                     make each mistake of the tracks' lessons.yaml in a
#                                     scratch copy of its stage: the stage's tests must
#                                     fail, and the checklist's failing row (make check-N)
#                                     must say what the mistake's `says` says
#   scripts/lessons.sh testtasks [TRACK]
#                                     grade each test task's tests against its solution
#                                     and known bugs: the solution's test catches every
#                                     bug, the lesson's empty test and an idle one none
#   scripts/lessons.sh record-times   keep the times of the last full todos run in
#                                     docs/check-times.tsv, and write them into the
#                                     lesson pages and the README
#   scripts/lessons.sh words [-check] print each lesson page's prose words against the
#                                     budgets; -check fails on a page over its budget or
#                                     out of the template's sections (CONTRIBUTING.md)
#   scripts/lessons.sh new -track T -number N -folder NN-name -title TITLE
#                                     scaffold a lesson: its manifest block, page in the
#                                     template, walkthrough and go.work lines
#   JOBS=2                            steps of todos and mistakes run at a time
#   BUILD_FLAGS=-trimpath             their go vet and go test build flags
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"
# The workshop command gives the stages controller-gen's outputs (generate-like), in
# steps that run at once: built once, here.
export WORKSHOP_BIN
WORKSHOP_BIN=$(tool_path workshop)

# scratch_dir prints a new temporary folder laid out like a checkout, removed on exit.
SCRATCH_DIRS=()
trap 'rm -rf ${SCRATCH_DIRS[@]+"${SCRATCH_DIRS[@]}"}' EXIT
scratch_dir() {
  local dir
  dir=$(mktemp -d)
  mkdir -p "$dir/solutions" "$dir/lessons"
  ln -s "$ROOT/shared" "$dir/shared"
  echo "$dir"
}

# Background jobs, a few at a time: start one with `CMD & JOB_PIDS+=($!)` once
# wait_for_slot N returned. bash 3.2 (a stock Mac's) cannot wait for whichever job
# ends first (bash 4.3 can): wait_for_slot looks at the jobs every tenth of a second
# instead (each takes seconds), and collects the exit status of those that ended.
JOB_PIDS=()
JOBS_FAILED=0
# wait_for_slot N waits until fewer than N of the jobs of JOB_PIDS run, or none for N 0;
# it sets JOBS_FAILED to 1 when one that ended failed.
wait_for_slot() {
  local pid running
  while :; do
    running=()
    for pid in ${JOB_PIDS[@]+"${JOB_PIDS[@]}"}; do
      if kill -0 "$pid" 2>/dev/null; then
        running+=("$pid")
      else
        wait "$pid" || JOBS_FAILED=1
      fi
    done
    JOB_PIDS=(${running[@]+"${running[@]}"})
    ((${#JOB_PIDS[@]} > 0 && ${#JOB_PIDS[@]} >= $1)) || return 0
    sleep 0.1
  done
}

# each_module CMD DIR... runs CMD DIR for every DIR, two at a time (the machines have two
# cores); it fails when one of them failed.
each_module() {
  local cmd=$1 dir
  shift
  JOBS_FAILED=0
  for dir in "$@"; do
    wait_for_slot 2
    "$cmd" "$dir" &
    JOB_PIDS+=($!)
  done
  wait_for_slot 0
  return "$JOBS_FAILED"
}

# derive TOP FOLDER adds controller-gen's outputs to solution and lesson FOLDER under TOP:
# the lesson gets its solution's when it reads the same inputs. Then its dist/, from its
# own config/ (scripts/dist.sh): a lesson's chart must not show the RBAC or the flags its
# tasks write.
derive_solution() { workshop generate-like "$1" "" && "$ROOT/scripts/dist.sh" write "$1"; }
derive_lesson() {
  # A lesson that starts empty (the capstone) holds its README alone: nothing to derive.
  [[ -f $1/go.mod ]] || return 0
  workshop generate-like "$1" "${1/\/lessons\//\/solutions\/}" && "$ROOT/scripts/dist.sh" write "$1"
}
derive() {
  local top=$1 folders
  folders=$(track_lessons | cut -f2)
  # shellcheck disable=SC2046,SC2086 # one folder a word: the folders' names have no spaces
  each_module derive_solution $(printf "$top/solutions/%s " $folders)
  # shellcheck disable=SC2046,SC2086 # as above
  each_module derive_lesson $(printf "$top/lessons/%s " $folders)
}

write() {
  say "Writing every solution and lesson from tracks/, and lessons/index.json"
  lessongen write
  say "Writing the checklists of docs/lesson-NN.md as make check-N prints them"
  lessongen docs
  say "Adding what controller-gen derives: tracks/, then every solution and lesson"
  local tracks
  # shellcheck disable=SC2046 # one track name a word
  tracks=$(printf "$ROOT/tracks/%s " $(track_lessons | cut -f1 | sort -u))
  # shellcheck disable=SC2086 # one folder a word
  each_module derive_solution $tracks
  # The tracks' dist/ follows their config, which controller-gen may just have changed:
  # then the stages take the new files too.
  # shellcheck disable=SC2086
  if ! "$ROOT/scripts/dist.sh" check $tracks 2>/dev/null; then
    say "Writing the tracks' dist/ (scripts/dist.sh), and the stages that have it"
    # shellcheck disable=SC2086
    "$ROOT/scripts/dist.sh" write $tracks
    lessongen write
  fi
  derive "$ROOT"
}

# lesson N... puts lessons N back to their starting state, as make reset-N does.
lesson() { workshop reset "$@"; }

check() {
  local top kind bad=0 only=("$@")
  top=$(scratch_dir)
  SCRATCH_DIRS+=("$top")
  lessongen write -out "$top"
  if ((${#only[@]} > 0)); then
    # Only these folders: the others are left out of the comparison.
    local folder
    for folder in ${only[@]+"${only[@]}"}; do
      [[ -d $top/$folder ]] || die "tracks/ generates no $folder"
      derive_solution "$top/solutions/${folder#*/}"
      [[ $folder == solutions/* ]] || derive_lesson "$top/$folder"
      diff -r "$top/$folder" "$ROOT/$folder" >/dev/null || die "$folder differs from what tracks/ generates"
    done
    say "$* match tracks/"
    return
  fi
  derive "$top"
  # What a track borrows from another is generated into the track too.
  if [[ -d $top/tracks ]]; then
    local file
    while read -r file; do
      if ! diff -q "$top/tracks/$file" "$ROOT/tracks/$file" >/dev/null 2>&1; then
        warn "tracks/$file differs from what its track's lessons.yaml borrows:"
        diff "$top/tracks/$file" "$ROOT/tracks/$file" | head -20 >&2 || true
        bad=1
      fi
    done < <(cd "$top/tracks" && find . -type f | sed 's|^\./||')
  fi
  for kind in solutions lessons; do
    if ! diff -r "$top/$kind" "$ROOT/$kind" >/dev/null 2>&1; then
      warn "$kind/ differs from what tracks/ generates:"
      diff -r "$top/$kind" "$ROOT/$kind" | head -30 >&2 || true
      bad=1
    fi
  done
  ((bad == 0)) || die "generated stages or lessons are out of date or were edited by hand: edit the track (tracks/<name> and its lessons.yaml), run \`make generate\` and commit the result"
  say "Every solution, every lesson and lessons/index.json match tracks/"
}

case ${1:-} in
  write) write ;;
  lesson) shift; (($# > 0)) || die "usage: $0 lesson N..."; lesson "$@" ;;
  check) shift; check "$@" ;;
  tracks) track_lessons ;;
  # The maintainers' checks of every lesson are in Go (scripts/tools/workshop).
  mistakes) shift; workshop mistakes "$@" ;;
  todos) shift; workshop steps "$@" ;;
  testtasks) shift; workshop testtasks "$@" ;;
  record-times) workshop record-times ;;
  words) shift; tool lessongen -root "$ROOT" words "$@" ;;
  new) shift; tool lessongen -root "$ROOT" new "$@" ;;
  *) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
