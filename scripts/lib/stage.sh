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
