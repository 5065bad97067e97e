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

# track_of PATH prints the track of a stage folder: the word after its number
# (solutions/06-nodepool-finalizer: nodepool). A track is the one operator its stages build.
track_of() {
  local name=${1%/}
  name=${name##*/}
  name=${name#*-}
  echo "${name%%-*}"
}

# generate_lesson DIR runs scripts/generate.sh on a lesson unless nothing it reads or
# writes changed since it last ran there: the API types, the +kubebuilder markers
# anywhere in the module, and the generated files themselves. controller-gen type-checks
# the whole module, several seconds of each make check-N otherwise.
generate_lesson() {
  local dir=$1 stamp key
  stamp="$CACHE/check/$(basename "$dir").generated"
  generated_inputs() {
    (
      cd "$dir"
      "$CACHE/bin/current/controller-gen" --version 2>/dev/null || true
      find api -name '*.go' ! -name 'zz_generated*' 2>/dev/null | sort | xargs -r cat
      grep -rh --include='*.go' -e '+kubebuilder:' -e '+groupName' . | sort
      find api config -name 'zz_generated*' -o -path '*/crd/bases/*' -o -name role.yaml -o -name manifests.yaml 2>/dev/null |
        sort | xargs -r cat
    ) | sha256sum | cut -c1-16
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
# learner's files, not those make check-N regenerates (DeepCopy code, CRDs, RBAC role,
# webhook configuration).
edited_since() {
  find "$1" -type f ! -name 'zz_generated*' ! -path '*/config/crd/bases/*' ! -path '*/config/rbac/role.yaml' \
    ! -path '*/config/webhook/manifests.yaml' -newer "$2" -print -quit
}

# newest_solution TRACK prints the folder of the newest solution of TRACK (the track's
# source: scripts/lessons.sh tracks), or fails when there is none. Scripts that need a
# track's finished operator ask here, so that where it lives can change in one place.
newest_solution() {
  local found
  found=$(ls -d "$ROOT"/solutions/[0-9][0-9]-"$1"{,-*}/ 2>/dev/null | sort | tail -n 1)
  [[ -n $found ]] || return 1
  echo "${found%/}"
}
