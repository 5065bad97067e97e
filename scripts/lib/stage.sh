# Helpers for scripts that work on one stage. Source after common.sh.

# stage_dir KIND N prints the folder of lesson or solution N (KIND is lessons or
# solutions; N may be 1 or 01).
stage_dir() {
  local kind=$1 n
  [[ $2 =~ ^[0-9]+$ ]] || die "lesson numbers are numbers, like 1 or 01 (got '$2')"
  n=$(printf '%02d' "$((10#$2))")
  local dir
  dir=$(ls -d "$ROOT/$kind/$n"-*/ 2>/dev/null | head -n 1) ||
    die "there is no $kind/$n-*; the lessons are: $(cd "$ROOT/lessons" && ls -d [0-9]* | tr '\n' ' ')"
  [[ -n $dir ]] || die "there is no $kind/$n-*"
  echo "${dir%/}"
}

# lessongen runs scripts/tools/lessongen on this checkout, built once per script.
LESSONGEN=
lessongen() {
  [[ -n $LESSONGEN ]] || LESSONGEN=$(tool_path lessongen)
  "$LESSONGEN" -root "$ROOT" "$@"
}

# track_lessons prints one line per lesson: its track, its folder and its number of
# tasks, first lesson first. The tracks are the folders of tracks/, each with its
# lessons.yaml: this is the one list of them.
track_lessons() { lessongen tracks; }

# track_of FOLDER prints the track of a lesson or solution folder (06-nodepool-finalizer:
# nodepool).
track_of() {
  local folder=${1%/}
  track_lessons | awk -v f="${folder##*/}" '$2 == f {print $1}'
}

# previous_in_track FOLDER prints the folder of the lesson before FOLDER in FOLDER's
# track (13-imoocpod-versions: 02-imoocpod-workflow), or nothing when FOLDER is its
# track's first lesson.
previous_in_track() {
  local folder=${1%/}
  track_lessons | awk -v f="${folder##*/}" '$2 == f {print before[$1]; exit} {before[$1] = $2}'
}

# newest_solution TRACK prints the folder of the last solution of TRACK, or fails when
# there is no such track.
newest_solution() {
  local folder
  folder=$(track_lessons | awk -v t="$1" '$1 == t {f = $2} END {print f}')
  [[ -n $folder ]] || return 1
  echo "$ROOT/solutions/$folder"
}

# controller_gen_inputs DIR prints a digest of what controller-gen reads in the module
# DIR: its API types and every +kubebuilder marker; and, when it writes apply
# configurations, which name their module's packages, the module's path.
controller_gen_inputs() {
  (
    cd "$1"
    find api -name '*.go' ! -name 'zz_generated*' 2>/dev/null | sort | xargs -r cat
    grep -rh --include='*.go' -e '+kubebuilder:' -e '+groupName' . | sort
    ! grep -rqs -- '+kubebuilder:ac:generate=true' api || awk '$1 == "module" {print $2; exit}' go.mod
  ) | sha256sum | cut -c1-16
}

# generate_like DIR REF gives the module DIR the controller-gen outputs of the module
# REF when both read the same inputs, and else those scripts/generate.sh wrote for the
# same inputs before (kept in GENERATED, beside Go's build cache), running it only for
# inputs never seen: the steps of a lesson and the mistakes of a solution mostly change
# code alone, and controller-gen type-checks the whole module, seconds each time. In a
# new clone, scripts/verify.sh ran it for 25 sets of inputs: over a minute, when the
# checkout kept its own.
generate_like() {
  local dir=$1 ref=$2 inputs kept
  inputs=$(controller_gen_inputs "$dir")
  if [[ ! -d $ref || $inputs != "$(controller_gen_inputs "$ref")" ]]; then
    # What generate.sh writes depends on its inputs and on the generators: their pins
    # name $BIN; crddesc's code, generate.sh and the list of outputs (common.sh) the rest.
    kept="$GENERATED/$(cat "$ROOT/scripts/generate.sh" "$ROOT/scripts/lib/common.sh" "$ROOT"/scripts/tools/crddesc/*.go |
      sha256sum | cut -c1-12)-$(basename "$BIN")/$inputs"
    if [[ ! -d $kept ]]; then
      "$ROOT/scripts/generate.sh" "$dir"
      local new
      mkdir -p "$(dirname "$kept")"
      new=$(mktemp -d "$kept.XXXXXX")
      controller_gen_outputs "$dir" | (cd "$dir" && xargs -r cp --parents -t "$new")
      # Steps running at once may write the same inputs' outputs: the first one stays.
      mv -T "$new" "$kept" 2>/dev/null || rm -rf "$new"
      # What no checkout used for 30 days goes: the inputs of edits since undone, and the
      # outputs of generators since changed, are never asked for again.
      find "$GENERATED" -mindepth 2 -maxdepth 2 -type d -mtime +30 -exec rm -rf {} + 2>/dev/null || true
      return
    fi
    touch "$kept"
    ref=$kept
  fi
  controller_gen_outputs "$dir" | (cd "$dir" && xargs -r rm -f)
  controller_gen_outputs "$ref" | (cd "$ref" && xargs -r cp --parents -t "$dir")
  # As generate.sh leaves it: no empty folder where an output went.
  (cd "$dir" && find config api -depth -type d -empty -delete 2>/dev/null) || true
}

# generate_lesson DIR runs scripts/generate.sh on a lesson unless nothing it reads or
# writes changed since it last ran there: the API types, the +kubebuilder markers
# anywhere in the module, and the generated files themselves. controller-gen type-checks
# the whole module, several seconds of each make check-N otherwise.
generate_lesson() {
  local dir=$1 stamp key
  stamp="$CACHE/check/$(basename "$dir").generated"
  generated_inputs() {
    {
      "$CACHE/bin/current/controller-gen" --version 2>/dev/null || true
      controller_gen_inputs "$dir"
      controller_gen_outputs "$dir" | (cd "$dir" && xargs -r cat)
    } | sha256sum | cut -c1-16
  }
  key=$(generated_inputs)
  if [[ -f $stamp && $(<"$stamp") == "$key" ]]; then
    say "The CRDs and RBAC of lessons/$(basename "$dir") are up to date with your markers"
    return
  fi
  say "Regenerating the CRDs and RBAC of lessons/$(basename "$dir") from your API types and markers"
  "$ROOT/scripts/generate.sh" "$dir"
  mkdir -p "$(dirname "$stamp")"
  generated_inputs >"$stamp"
}

# edited_since DIR FILE prints a file of lesson DIR changed after FILE, if any: the
# learner's files, not those make check-N regenerates (controller_gen_outputs).
edited_since() {
  local dir=$1 file=$2
  (cd "$dir" && find . -type f -newer "$file" | sed 's|^\./||' | sort) |
    comm -23 - <(controller_gen_outputs "$dir") | head -n 1
}
