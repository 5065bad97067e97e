#!/usr/bin/env bash
# Writes everything that is generated from a track's source. A track is one operator,
# taught over the lessons whose folder names share the word after the number
# (01-imoocpod, 02-imoocpod-workflow: track imoocpod). The track's last solution is its
# source; from it, scripts/tools/lessongen writes
#   - every earlier solution of the track (the //stage: markers say what each stage has),
#   - every lesson of the track (the //lesson: markers say what the learner writes),
# and scripts/generate.sh adds what controller-gen derives. All of it is committed, like
# generated code, and never edited by hand: edit the source and run `make generate`.
#
# Usage:
#   scripts/lessons.sh write [TRACK]  regenerate the earlier stages and lessons of every
#                                     track, or of TRACK (imoocpod, nodepool, ...)
#   scripts/lessons.sh lesson N...    regenerate lessons N (a learner's reset)
#   scripts/lessons.sh check [TRACK]  fail if anything committed differs from what the
#                                     sources generate (touches nothing)
#   scripts/lessons.sh tracks         print each track: its source, then its stages
#   scripts/lessons.sh todos [TRACK]  solve each lesson's tasks one by one in a scratch copy:
#                                     each must turn exactly its own tests green
#   scripts/lessons.sh mistakes [TRACK]
#                                     make each mistake a track's source marks (//mistake:)
#                                     in a scratch copy of its stage: the stage's tests must
#                                     fail, and their first failure must say what the
#                                     marker says
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

# tracks prints one line per track: the folder names of its stages, first to last.
tracks() {
  local dir name word
  declare -A stages=()
  local order=()
  for dir in "$ROOT"/solutions/[0-9][0-9]-*/; do
    name=$(basename "$dir")
    word=$(track_of "$name")
    [[ -n ${stages[$word]:-} ]] || order+=("$word")
    stages[$word]+="$name "
  done
  for word in "${order[@]}"; do
    echo "${stages[$word]% }"
  done
}

# stage_number NAME prints the lesson number of a folder name (06-nodepool-finalizer: 6).
stage_number() { echo $((10#${1%%-*})); }

# lessongen runs scripts/tools/lessongen, built once per run: a track's stages and
# lessons call it many times.
LESSONGEN=
build_lessongen() {
  LESSONGEN=$(tool_path lessongen)
}
lessongen() {
  [[ -n $LESSONGEN ]] || build_lessongen
  "$LESSONGEN" "$@"
}

# write_track TOP SCRATCH STAGE... writes the earlier stages and the lessons of one track
# under TOP/solutions and TOP/lessons. The last stage is the source, read from $ROOT; its
# own lesson is made from a copy without the other stages' markers, written in SCRATCH
# (which has the layout of a checkout, so that the module's relative paths resolve).
write_track() {
  local top=$1 scratch=$2; shift 2
  local stages=("$@")
  local source=${stages[-1]} first name n
  first=$(stage_number "${stages[0]}")
  for name in "${stages[@]}"; do
    n=$(stage_number "$name")
    local solution="$top/solutions/$name"
    if [[ $name == "$source" ]]; then
      solution="$scratch/solutions/$name"
    fi
    lessongen -source "$ROOT/solutions/$source" -first "$first" -stage "$n" -to "$solution"
    "$ROOT/scripts/generate.sh" "$solution"
    write_lesson "$top" "$solution"
  done
}

# write_lesson TOP SOLUTION_DIR writes the lesson of SOLUTION_DIR under TOP/lessons.
write_lesson() {
  local top=$1 solution=$2
  local lesson name title
  name=$(basename "$solution")
  lesson="$top/lessons/$name"
  title=$(head -n 1 "$ROOT/docs/lesson-${name%%-*}.md")
  lessongen -from "$solution" -to "$lesson" -index "$top/lessons/index.json" -title "${title#*: }"
  # The lesson's API may lack markers the solution has: its CRDs are its own.
  "$ROOT/scripts/generate.sh" "$lesson"
}

# scratch_dir prints a new temporary folder laid out like a checkout, removed on exit.
SCRATCH_DIRS=()
trap 'rm -rf "${SCRATCH_DIRS[@]}"' EXIT
scratch_dir() {
  local dir
  dir=$(mktemp -d)
  mkdir -p "$dir/solutions" "$dir/lessons"
  ln -s "$ROOT/shared" "$dir/shared"
  echo "$dir"
}

write() {
  local only=${1:-} scratch line track
  scratch=$(scratch_dir)
  SCRATCH_DIRS+=("$scratch")
  while read -r line; do
    # shellcheck disable=SC2086 # a line is a list of folder names
    set -- $line
    track=$(track_of "$1")
    [[ -z $only || $only == "$track" ]] || continue
    if (($# > 1)); then
      say "Track $track: writing ${*:1:$#-1} from solutions/${!#}, and their lessons"
    else
      say "Writing lessons/$1 from solutions/$1"
    fi
    write_track "$ROOT" "$scratch" "$@"
  done < <(tracks)
}

lesson() {
  local scratch n line name
  scratch=$(scratch_dir)
  SCRATCH_DIRS+=("$scratch")
  for n in "$@"; do
    [[ $n =~ ^[0-9]+$ ]] || die "lesson numbers are numbers, like 1 or 01 (got '$n')"
    local found=
    while read -r line; do
      # shellcheck disable=SC2086
      set -- $line
      for name in "$@"; do
        (($(stage_number "$name") == 10#$n)) || continue
        found=1
        local solution="$ROOT/solutions/$name"
        if [[ $name == "${!#}" ]]; then
          # The source has the markers of every stage: write its own stage first.
          solution="$scratch/solutions/$name"
          lessongen -source "$ROOT/solutions/$name" -first "$(stage_number "$1")" -stage "$n" -to "$solution"
          "$ROOT/scripts/generate.sh" "$solution"
        fi
        say "Writing lessons/$name"
        write_lesson "$ROOT" "$solution"
        # make progress: a reset lesson is not started, whatever its last check said;
        # make hint-N starts again from the first hint.
        rm -f "$CACHE/check/$name.result" "$CACHE/hints/$name".*
      done
    done < <(tracks)
    [[ -n $found ]] || die "there is no lesson $n; the lessons are: $(cd "$ROOT/lessons" && ls -d [0-9]* | tr '\n' ' ')"
  done
}

check() {
  local only=${1:-} top scratch line name track bad=0
  top=$(scratch_dir)
  scratch=$(scratch_dir)
  SCRATCH_DIRS+=("$top" "$scratch")
  while read -r line; do
    # shellcheck disable=SC2086
    set -- $line
    track=$(track_of "$1")
    [[ -z $only || $only == "$track" ]] || continue
    write_track "$top" "$scratch" "$@"
    for name in "$@"; do
      local kind
      for kind in solutions lessons; do
        [[ $kind == solutions && $name == "${!#}" ]] && continue # the source itself
        if ! diff -r "$top/$kind/$name" "$ROOT/$kind/$name" >/dev/null 2>&1; then
          warn "$kind/$name differs from what solutions/${!#} generates:"
          diff -r "$top/$kind/$name" "$ROOT/$kind/$name" | head -20 >&2 || true
          bad=1
        fi
      done
    done
  done < <(tracks)
  if [[ -z $only ]] && ! diff "$top/lessons/index.json" "$ROOT/lessons/index.json" >/dev/null 2>&1; then
    warn "lessons/index.json differs from what the sources' //lesson: markers generate:"
    diff "$top/lessons/index.json" "$ROOT/lessons/index.json" | head -20 >&2 || true
    bad=1
  fi
  ((bad == 0)) || die "generated stages or lessons are out of date or were edited by hand: edit the track's source (its last solution), run \`make generate\` and commit the result"
  say "Every earlier stage and every lesson matches its track's source"
}

# mistakes [TRACK] makes every mistake of every track's source (or TRACK's), three at a
# time, each in a scratch checkout of its own, and runs the stage's tests with -failfast:
# the first failure is what a learner reads first, so it must name the mistake.
mistakes() {
  local only=${1:-} line track source first stage name want
  local results="$CACHE/test/mistakes" count=0 bad=0
  rm -rf "$results" && mkdir -p "$results"
  build_lessongen # once, not in each of the jobs below
  while read -r line; do
    # shellcheck disable=SC2086
    set -- $line
    track=$(track_of "$1")
    [[ -z $only || $only == "$track" ]] || continue
    source=${!#}
    first=$(stage_number "$1")
    local stages=("$@")
    while IFS=$'\t' read -r stage name want; do
      local folder
      for folder in "${stages[@]}"; do
        (($(stage_number "$folder") == stage)) && break
      done
      while (($(jobs -rp | wc -l) >= 3)); do wait -n || true; done
      # Two tracks may name a mistake alike: the log is named after the stage too.
      make_mistake "$source" "$first" "$stage" "$folder" "$name" >"$results/$folder-$name.log" 2>&1 &
      printf '%s\t%s\t%s\n' "$folder" "$name" "$want" >>"$results/list"
      count=$((count + 1))
    done < <(lessongen -source "$ROOT/solutions/$source" -first "$first" -list-mistakes)
  done < <(tracks)
  wait
  ((count > 0)) || die "no //mistake: markers in ${only:-any track}"
  while IFS=$'\t' read -r folder name want; do
    local out="$results/$folder-$name.log" first_failure
    first_failure=$(sed -n '/^--- FAIL: /,$p' "$out")
    if ! grep -q '^--- FAIL: ' "$out"; then
      warn "mistake $name in solutions/$folder: no test fails:"$'\n'"$(tail -n 20 "$out")"
      bad=1
    elif [[ $first_failure != *"$want"* ]]; then
      warn "mistake $name in solutions/$folder: the first failure does not say '$want':"$'\n'"$(sed -n '/^--- FAIL: /,/^FAIL/p' "$out" | head -n 30)"
      bad=1
    else
      say "Mistake $name in solutions/$folder is caught: ${want}"
    fi
  done <"$results/list"
  ((bad == 0)) || die "some mistakes are not caught, or caught with a message that does not name them (logs: ${results#"$ROOT"/})"
  say "All $count mistakes are caught by the first failing test, which names them"
}

# make_mistake SOURCE FIRST STAGE FOLDER NAME writes stage STAGE of the track with the
# mistake NAME made, into a scratch checkout, and runs its tests.
make_mistake() {
  local source=$1 first=$2 stage=$3 folder=$4 name=$5 scratch
  scratch=$(scratch_dir)
  local dir="$scratch/solutions/$folder"
  lessongen -source "$ROOT/solutions/$source" -first "$first" -stage "$stage" -mistake "$name" -to "$dir"
  # controller-gen is slow: a mistake that leaves every marker alone keeps the stage's
  # committed CRDs, RBAC and deepcopy code. diff exits 1 when the folders differ, which
  # they always do here: in a pipeline under pipefail that status would hide grep's, so
  # the output is kept first and searched after.
  local changes
  changes=$(diff -r "$ROOT/solutions/$folder" "$dir" 2>/dev/null || true)
  if grep -q '^[<>].*+kubebuilder:' <<<"$changes"; then
    "$ROOT/scripts/generate.sh" "$dir"
  else
    cp -rn "$ROOT/solutions/$folder/." "$dir/"
  fi
  (cd "$dir" && GOWORK=off KUBEBUILDER_ASSETS="$CACHE/bin/current" \
    go test -count=1 -failfast ./...) || true
  rm -rf "$scratch"
}

# todos [TRACK] checks that each task of each lesson (a //lesson:todo(N) block and the
# tests its //lesson:test lines name) is what turns its tests green: for k = 0 .. n-1, it
# writes the lesson with tasks 1 to k solved (lessongen -done k) into a scratch checkout,
# runs its tests as make check-N does, and requires tasks 1 to k done and task k+1
# failing, no other task done. (Step n is the solution, whose tests run anyway.) The steps
# are independent: three run at a time, as most of a step is waiting for a failing test
# to give up.
todos() {
  local only=${1:-} line track name results="$CACHE/test/todos-${1:-all}" count=0 bad=0 tasks k
  rm -rf "$results" && mkdir -p "$results"
  build_lessongen
  TODOS=$(tool_path todos)
  while read -r line; do
    # shellcheck disable=SC2086
    set -- $line
    track=$(track_of "$1")
    [[ -z $only || $only == "$track" ]] || continue
    for name in "$@"; do
      tasks=$(grep -c '"id":' <<<"$(lesson_entry "$(stage_number "$name")")" || true)
      ((tasks > 0)) || die "lessons/$name has no task in lessons/index.json: run make generate"
      local solution scratch
      scratch=$(scratch_dir)
      SCRATCH_DIRS+=("$scratch")
      solution=$(stage_solution "$name" "$1" "${!#}" "$scratch")
      for ((k = 0; k < tasks; k++)); do
        while (($(jobs -rp | wc -l) >= 3)); do wait -n || true; done
        todos_step "$name" "$solution" "$k" >"$results/$name.$k.log" 2>&1 &
        count=$((count + 1))
      done
      echo "$name $tasks" >>"$results/list"
    done
  done < <(tracks)
  wait
  ((count > 0)) || die "no lessons in ${only:-any track}"
  while read -r name tasks; do
    local failed=()
    for ((k = 0; k < tasks; k++)); do
      grep -q '^lesson .* exactly those done' "$results/$name.$k.log" || failed+=("$k")
    done
    if ((${#failed[@]} == 0)); then
      say "lessons/$name: each of its $tasks tasks turns its own tests green, in order"
    else
      for k in "${failed[@]}"; do
        warn "lessons/$name with tasks 1-$k solved:"$'\n'"$(tail -n 20 "$results/$name.$k.log")"
      done
      bad=1
    fi
  done <"$results/list"
  ((bad == 0)) || die "some tasks are not what turns their tests green (logs: ${results#"$ROOT"/})"
  say "All $count steps of the lessons' tasks are as their tests say"
}

# stage_solution NAME FIRST SOURCE SCRATCH prints the folder of solution NAME with its own
# lesson markers: the committed one, or for the track's source (which has every stage's
# markers) its own stage, written into the scratch checkout SCRATCH.
stage_solution() {
  local name=$1 first=$2 source=$3 scratch=$4 solution f
  if [[ $name != "$source" ]]; then
    echo "$ROOT/solutions/$name"
    return
  fi
  solution="$scratch/solutions/$name"
  lessongen -source "$ROOT/solutions/$name" -first "$(stage_number "$first")" -stage "$(stage_number "$name")" -to "$solution"
  # The generated files, which lessongen leaves out: the source's are its own stage's.
  cp -r "$ROOT/solutions/$name/config/." "$solution/config/"
  (cd "$ROOT/solutions/$name" && find . -name zz_generated.deepcopy.go) |
    while read -r f; do cp "$ROOT/solutions/$name/$f" "$solution/$f"; done
  echo "$solution"
}

# todos_step NAME SOLUTION K writes lesson NAME with tasks 1 to K solved from SOLUTION, in
# a scratch checkout, and runs its tests: tasks 1 to K must be done, K+1 failing.
todos_step() {
  local name=$1 solution=$2 k=$3 scratch dir
  scratch=$(scratch_dir)
  dir="$scratch/lessons/$name"
  lessongen -from "$solution" -to "$dir" -done "$k"
  # controller-gen only when the solved tasks changed a marker of the committed lesson.
  if diff <(grep -rh --include='*.go' '+kubebuilder:' "$ROOT/lessons/$name" | sort) \
    <(grep -rh --include='*.go' '+kubebuilder:' "$dir" | sort) >/dev/null; then
    rm -rf "$dir/config" && cp -r "$ROOT/lessons/$name/config" "$dir/"
  else
    "$ROOT/scripts/generate.sh" "$dir"
  fi
  # go test fails until the last step: what its output says is what counts.
  (cd "$dir" && GOWORK=off KUBEBUILDER_ASSETS="$CACHE/bin/current" go test -json -count=1 -failfast ./... 2>&1 || true) |
    "$TODOS" expect -index "$ROOT/lessons/index.json" -lesson "$(stage_number "$name")" -done "$k"
  rm -rf "$scratch"
}

# lesson_entry N prints lesson N's entry of lessons/index.json (one task's fields a line).
lesson_entry() {
  awk -v n="$1" '/"number": / { on = ($2 == n ",") } on' "$ROOT/lessons/index.json"
}

case ${1:-} in
  write) shift; write "$@" ;;
  lesson) shift; (($# > 0)) || die "usage: $0 lesson N..."; lesson "$@" ;;
  check) shift; check "$@" ;;
  tracks) tracks ;;
  mistakes) shift; mistakes "$@" ;;
  todos) shift; todos "$@" ;;
  *) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
