#!/usr/bin/env bash
# Shows what a learner writes in lesson N: lesson N against solution N. With FROM=solution,
# shows what lesson N adds to the stage before: the solution of the lesson before it in
# its track (lessongen tracks) against lesson N; solution 02 against lesson 13.
# Only code: module paths, import blocks (the editor writes those), README.md, go.sum and
# what controller-gen generates are left out.
#
# Usage: scripts/diff.sh N [solution]
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

n=${1:?usage: $0 N [solution]}
if [[ ${2:-} == solution ]]; then
  right=$(stage_dir lessons "$n")
  before=$(previous_in_track "$right")
  [[ -n $before ]] ||
    die "lesson $((10#$n)) starts a new operator, $(track_of "$right"); no solution of its track comes before it, so there is nothing to compare. make diff-$((10#$n)) shows what is left to write"
  left=$ROOT/solutions/$before
else
  left=$(stage_dir lessons "$n")
  right=$(stage_dir solutions "$n")
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# normalize SRC DEST copies a stage without what would only be noise in the diff.
normalize() {
  local dest="$tmp/$2"
  mkdir -p "$dest"
  (cd "$1" && tar --exclude=README.md --exclude=go.sum -cf - .) | tar -xf - -C "$dest"
  controller_gen_outputs "$dest" | (cd "$dest" && xargs -r rm -f)
  find "$dest" -type f -print0 | xargs -0 sed -i -E \
    -e 's#github.com/kube-workshop/operator-workshop/(lessons|solutions)/[0-9]{2}-[a-z0-9-]+#MODULE#g'
  # An import block becomes one line: which packages the code needs is goimports' business.
  find "$dest" -name '*.go' -print0 | xargs -0 sed -i -E '/^import \($/,/^\)$/{/^import \($/!d; s/.*/import (...)/}'
}
normalize "$left" "${left#"$ROOT"/}"
normalize "$right" "${right#"$ROOT"/}"
# diff repeats its options in each file's header: pass only the ones a reader needs.
options=(-ruN)
[[ -t 1 ]] && options+=(--color=always)
(cd "$tmp" && diff "${options[@]}" "${left#"$ROOT"/}" "${right#"$ROOT"/}") || true
