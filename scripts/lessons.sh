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
#   scripts/lessons.sh record-times   keep the times of the last full todos run in
#                                     docs/check-times.tsv, and write them into the
#                                     lesson pages and the README
#   JOBS=2                            steps of todos and mistakes run at a time
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"
source "$ROOT/scripts/lib/processes.sh"
# The workshop command gives the stages controller-gen's outputs (generate-like), in
# steps that run at once: built once, here.
export WORKSHOP_BIN
WORKSHOP_BIN=$(tool_path workshop)

# scratch_dir prints a new temporary folder laid out like a checkout, removed on exit.
SCRATCH_DIRS=()
trap 'rm -rf ${SCRATCH_DIRS[@]+"${SCRATCH_DIRS[@]}"}' EXIT
# shared_in_place DIR makes the module DIR, in a scratch checkout, use shared/ where it
# is, not through the scratch checkout's link: Go keys the build cache of a package by its
# folder too, so every scratch checkout would compile shared/'s packages anew (about a
# tenth of a step's time).
shared_in_place() {
  (cd "$1" && go mod edit -replace "github.com/kube-workshop/operator-workshop/shared=$ROOT/shared")
}

scratch_dir() {
  local dir
  dir=$(mktemp -d)
  mkdir -p "$dir/solutions" "$dir/lessons"
  ln -s "$ROOT/shared" "$dir/shared"
  echo "$dir"
}

# Background jobs, a few at a time: start one with `CMD & JOB_PIDS+=($!)` once
# wait_for_slot N returned. bash 3.2 (a stock Mac's) has no wait -n, which waits for
# whichever job ends first: wait_for_slot looks at the jobs every tenth of a second
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
# the lesson gets its solution's when it reads the same inputs.
derive_solution() { workshop generate-like "$1" ""; }
derive_lesson() { workshop generate-like "$1" "${1/\/lessons\//\/solutions\/}"; }
derive() {
  local top=$1 folders
  folders=$(track_lessons | cut -f2)
  # shellcheck disable=SC2086 # one folder name a word
  each_module derive_solution $(printf "$top/solutions/%s " $folders)
  # shellcheck disable=SC2086
  each_module derive_lesson $(printf "$top/lessons/%s " $folders)
}

write() {
  say "Writing every solution and lesson from tracks/, and lessons/index.json"
  lessongen write
  say "Writing the checklists of docs/lesson-NN.md as make check-N prints them"
  lessongen docs
  say "Adding what controller-gen derives: tracks/, then every solution and lesson"
  # shellcheck disable=SC2046
  each_module derive_solution $(printf "$ROOT/tracks/%s " $(track_lessons | cut -f1 | sort -u))
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

# Steps of todos and mistakes run JOBS at a time (2: a step keeps about one core busy;
# three at a time on two cores took as long in all, and each step's tests a third
# longer). Their go test runs no vet (test.sh vets the lessons and solutions once) and
# links no debug information (-ldflags=-w): most of a step's build is linking its test
# binaries, seconds each, and a failure's stack needs none of it. They build with
# -trimpath (BUILD_FLAGS): Go keys a package's compiled code by its folder too, and
# every step has a new one; without the folder in the key, a package that a step left
# as the step before had it is compiled once. The compiler and the linker run at the
# lowest priority (-toolexec nice), the tests at the usual one: the tests of one step do
# not wait on the build of the other, and their time is close to what a learner's make
# check-N waits on an idle machine (lesson 07's slowest step: 20.7s, then 16.3s).
JOBS=${JOBS:-2}
BUILD_FLAGS=(${BUILD_FLAGS-"-trimpath"} "-toolexec=nice -n 19")

# lesson_timeout FOLDER prints go test's -timeout for lesson FOLDER (lessons/index.json).
lesson_timeout() { "$TODOS" timeout -index "$ROOT/lessons/index.json" -lesson "$((10#${1%%-*}))"; }

# mistakes [TRACK] makes every mistake of every track (or TRACK's), JOBS at a time, each
# in a scratch checkout of its own, and runs the stage's tests as make check-N does: the
# checklist's failing row is what a learner reads first, so it must name the mistake,
# under the task the mistake belongs to (any task, for a mistake of none).
mistakes() {
  local only=${1:-} results="$CACHE/test/mistakes" count=0 bad=0 folder task name says
  rm -rf "$results" && mkdir -p "$results"
  TODOS=$(tool_path todos) LESSONGEN=$(tool_path lessongen)
  mark_processes mistakes
  while IFS=$'\t' read -r folder task name says; do
    [[ -z $only || $only == "$(track_of "$folder")" ]] || continue
    wait_for_slot "$JOBS"
    make_mistake "$folder" "$task" "$name" "$results/$folder-$name" >"$results/$folder-$name.log" 2>&1 &
    JOB_PIDS+=($!)
    printf '%s\t%s\t%s\t%s\n' "$folder" "$task" "$name" "$says" >>"$results/list"
    count=$((count + 1))
  done < <(lessongen mistakes)
  wait_for_slot 0
  ((count > 0)) || die "no mistakes in ${only:-any track}'s lessons.yaml"
  while IFS=$'\t' read -r folder task name says; do
    local out="$results/$folder-$name.log" shown where
    shown=$(failing_row "$task" <"$out")
    where="task $task's row"
    ((task > 0)) || where="the first failing row"
    if ! grep -qE '^  failing |^  A test of no task fails' "$out"; then
      warn "mistake $name in solutions/$folder: no test fails:"$'\n'"$(tail -n 20 "$out")"
      bad=1
    elif [[ $shown != *"$says"* ]]; then
      warn "mistake $name in solutions/$folder: $where does not say '$says':"$'\n'"$(grep -A4 -E '^  failing ' "$out" | head -n 12)"
      bad=1
    else
      say "Mistake $name in solutions/$folder is caught: $says"
    fi
  done <"$results/list"
  no_survivors "the marked mistakes' tests"
  ((bad == 0)) || die "some mistakes are not caught, or caught with a message that does not name them (logs: ${results#"$ROOT"/})"
  say "All $count mistakes are caught, each by a checklist row that names it"
}

# failing_row TASK reads a checklist (todos check) and prints, on one line, the failure
# shown under task TASK's row when that task is failing; for TASK 0, under the first
# failing row, or what the checklist says of a test of no task.
failing_row() {
  awk -v task="$1" '
    /^  (done|failing|not run) +TODO\(/ {
      id = $0; sub(/^.*TODO\(/, "", id); sub(/\).*$/, "", id)
      showing = ($1 == "failing" && !found && (task == 0 || id == task))
      if ($1 == "failing") found = 1
      next
    }
    showing && /^           / && !/A hint: / { sub(/^ +/, ""); printf "%s ", $0; next }
    task == 0 && !found && /^  A test of no task fails/ { untied = 1 }
    untied && /^  / { sub(/^ +/, ""); printf "%s ", $0 }
  '
}

# make_mistake FOLDER TASK NAME LOG writes solution FOLDER with the mistake NAME (of task
# TASK) made, into a scratch checkout, and prints the checklist its tests give, as make
# check-N would; go test's output goes to LOG.go-test.
make_mistake() {
  local folder=$1 task=$2 name=$3 log=$4 dir
  dir=$(scratch_stage solutions "$folder" -mistake "$name")
  # The mistake's task must be the first to fail: the later tasks' tests need not run. A
  # mistake of no task (0) runs them all, and the others.
  stage_tests "$dir" check -upto "$task" -log "$log.go-test" || true
  rm -rf "${dir%/*/*}"
}

# scratch_stage KIND FOLDER ARGS... writes KIND/FOLDER (solutions or lessons) as
# lessongen does with ARGS, and what controller-gen derives, into a new scratch checkout,
# and prints its folder.
scratch_stage() {
  local kind=$1 folder=$2 scratch dir
  shift 2
  scratch=$(scratch_dir)
  dir="$scratch/$kind/$folder"
  lessongen "${kind%s}" -to "$dir" "$@" "$((10#${folder%%-*}))"
  workshop generate-like "$dir" "$ROOT/$kind/$folder"
  shared_in_place "$dir"
  echo "$dir"
}

# stage_tests DIR TODOS-ARGS... runs the tests of the scratch stage DIR as make check-N
# does, by todos TODOS-ARGS (check or expect, and their flags, which say the tasks whose
# tests run): the tasks' tests in the packages that hold them, stopped once the first
# failure is settled, then, once every task is done, the others. Its temporary files (go
# test's build folder, the control plane's data) go in the scratch checkout: a go test
# stopped early leaves them behind.
stage_tests() {
  local dir=$1 folder n
  shift
  folder=$(basename "$dir")
  n=$((10#${folder%%-*}))
  mkdir -p "$dir/../../tmp"
  (cd "$dir" && GOWORK=off KUBEBUILDER_ASSETS="$CACHE/bin/current" TMPDIR="$(cd ../../tmp && pwd)" \
    "$TODOS" "$1" -index "$ROOT/lessons/index.json" -lesson "$n" "${@:2}" -stop \
    -- go test "${BUILD_FLAGS[@]}" -json -count=1 -failfast -vet=off -ldflags=-w -timeout "$(lesson_timeout "$folder")")
}

# todos [TRACK] checks that each task of each lesson (its //lesson:N.K block and the tests
# lessons.yaml names for it) is what turns its tests green: for k = 0 .. n-1, it writes
# the lesson with tasks 1 to k solved (lessongen lesson -done k) into a scratch checkout,
# runs the tests of tasks 1 to k+1 as make check-N does (in the packages that hold them),
# and requires tasks 1 to k done and task k+1 failing. (A later task whose tests pass
# without its code fails the step before it; step n is the solution, whose tests run
# anyway.) The steps are independent: JOBS run at a time, in rounds (below). The time the
# tests of each step ran is printed, and each lesson's slowest step: about what a learner
# waits for at a make check-N, once the lesson is built.
todos() {
  local only=${1:-} results="$CACHE/test/todos-${1:-all}" count=0 bad=0 track folder tasks k
  rm -rf "$results" && mkdir -p "$results" && : >"$results/list"
  TODOS=$(tool_path todos) LESSONGEN=$(tool_path lessongen)
  mark_processes todos
  while IFS=$'\t' read -r track folder tasks; do
    [[ -z $only || $only == "$track" ]] || continue
    ((tasks > 0)) || die "lessons/$folder has no task in tracks/$track/lessons.yaml"
    echo "$folder $tasks" >>"$results/list"
  done < <(track_lessons)
  # The steps go in order of how far into its lesson each one is, step k of a lesson of n
  # tasks at (k+1/2)/n: two steps that run at once are of two lessons. In lesson order,
  # two steps of lesson 07 ran at once, each starting two control planes, and its slowest
  # step took 26s; in rounds (step k of every lesson in round k), lesson 03's last steps,
  # alone in their rounds, ran together.
  while read -r folder k; do
    wait_for_slot "$JOBS"
    todos_step "$folder" "$k" >"$results/$folder.$k.log" 2>&1 &
    JOB_PIDS+=($!)
    count=$((count + 1))
  done < <(awk '{for (k = 0; k < $2; k++) printf "%.6f %s %d\n", (k + 0.5) / $2, $1, k}' "$results/list" |
    sort -n -k1,1 | cut -d' ' -f2-)
  wait_for_slot 0
  ((count > 0)) || die "no lessons in ${only:-any track}"
  local slowest=()
  while read -r folder tasks; do
    local failed=() times=() worst=0 worst_seconds=0 worst_k=0 seconds
    for ((k = 0; k < tasks; k++)); do
      grep -q '^lesson .* exactly those done' "$results/$folder.$k.log" || failed+=("$k")
      seconds=$(sed -n 's/^the tests ran for \([0-9.]*\)s$/\1/p' "$results/$folder.$k.log")
      seconds=${seconds:-?}
      times+=("$k:${seconds}s")
      if [[ $seconds != '?' ]] && (($(printf '%.0f' "$seconds") >= worst)); then
        worst=$(printf '%.0f' "$seconds") worst_seconds=$seconds worst_k=$k
      fi
    done
    if ((${#failed[@]} == 0)); then
      say "lessons/$folder: each of its $tasks tasks turns its own tests green, in order"
    else
      for k in ${failed[@]+"${failed[@]}"}; do
        warn "lessons/$folder with tasks 1-$k solved:"$'\n'"$(tail -n 20 "$results/$folder.$k.log")"
      done
      bad=1
    fi
    say "  the tests' time at each step (tasks solved:seconds, the build before them left out): ${times[*]+${times[*]}}"
    # The figures the pages and the README give (docs/check-times.tsv), beside this run's.
    local recorded
    recorded=$(awk -F'\t' -v f="$folder" '$1 == f {printf "%ss untouched, %ss at the slowest step", $2, $3}' "$ROOT/$CHECK_TIMES")
    say "  $CHECK_TIMES records ${recorded:-nothing}; this run: ${times[0]#0:} untouched, ${worst}s at the slowest step"
    local untouched=${times[0]#0:}
    printf '%s\t%s\t%s\t%s\n' "$folder" "${untouched%s}" "$worst_seconds" "$worst_k" >>"$results/times.partial"
    local solved="tasks 1-$worst_k solved"
    ((worst_k > 1)) || solved=$( ((worst_k == 1)) && echo "task 1 solved" || echo "no task solved")
    # What that step waited for last: a failing test that runs its Eventually out.
    local first
    first=$(grep '^task [0-9]* failed first in ' "$results/$folder.$worst_k.log" || true)
    slowest+=("$(printf '%4ss  lessons/%s with %s%s' "$worst" "$folder" "$solved" "${first:+ ($first)}")")
  done <"$results/list"
  say "The slowest step of each lesson ($JOBS steps at a time; the goal is 15s or less):"
  printf '  %s\n' ${slowest[@]+"${slowest[@]}"} >&2
  no_survivors "the lessons' steps"
  ((bad == 0)) || die "some tasks are not what turns their tests green (logs: ${results#"$ROOT"/})"
  # Only a run that passed has figures to record (record_times).
  mv "$results/times.partial" "$results/times.tsv"
  say "All $count steps of the lessons' tasks are as their tests say"
}

# The figures of the last full todos run that the lesson pages and the README give:
# record_times copies this run's (after scripts/lessons.sh todos of every track) and
# rewrites the lines that give them (lessongen docs); make verify checks those lines.
CHECK_TIMES=docs/check-times.tsv
record_times() {
  local measured="$CACHE/test/todos-all/times.tsv"
  [[ -f $measured ]] || die "no figures to record: run scripts/lessons.sh todos (every track) until it passes"
  {
    echo "# How long make check-N's tests ran, the build left out, in the last full run of"
    echo "# scripts/lessons.sh todos (two cores, two steps at a time): a lesson a line, its"
    echo "# untouched lesson's seconds, its slowest step's seconds and the tasks solved there."
    echo "# Written by scripts/lessons.sh record-times; make generate carries it into docs/."
    sort "$measured"
  } >"$ROOT/$CHECK_TIMES"
  lessongen docs
  say "Recorded $CHECK_TIMES and rewrote the lines of docs/ and README.md that give its figures"
}

# todos_step FOLDER K writes lesson FOLDER with tasks 1 to K solved, in a scratch
# checkout, and runs its tests: tasks 1 to K must be done, K+1 failing. todos expect
# says how long the tests ran.
todos_step() {
  local folder=$1 k=$2 dir
  dir=$(scratch_stage lessons "$folder" -done "$k")
  # Every package and its tests compile (go vet type-checks them without linking
  # anything); only the packages that hold tests of tasks 1 to K+1 are linked into test
  # binaries and start a control plane, and only those tests run. go test fails until
  # the last step: what its output says is what counts.
  (cd "$dir" && GOWORK=off go vet "${BUILD_FLAGS[@]}" ./...) && stage_tests "$dir" expect -done "$k"
  local ok=$?
  rm -rf "${dir%/*/*}"
  return "$ok"
}

case ${1:-} in
  write) write ;;
  lesson) shift; (($# > 0)) || die "usage: $0 lesson N..."; lesson "$@" ;;
  check) shift; check "$@" ;;
  tracks) track_lessons ;;
  mistakes) shift; mistakes "$@" ;;
  todos) shift; todos "$@" ;;
  record-times) record_times ;;
  *) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
