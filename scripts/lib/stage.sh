# shellcheck shell=bash
# Helpers for scripts that work on one stage. Source after common.sh.

# stage_dir KIND N prints the folder of lesson or solution N (KIND is lessons or
# solutions; N may be 1 or 01).
stage_dir() { workshop stage-dir "$@"; }

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
