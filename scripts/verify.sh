#!/usr/bin/env bash
# Fails when anything derived is out of date or a text has drifted from the code: version
# pins, shell a stock Mac cannot run (shlint) or that ShellCheck faults, code formatting,
# what controller-gen generates for each track, dist/ (scripts/dist.sh), the solutions
# and lessons generated from the tracks (scripts/lessons.sh check), golangci-lint, the
# names the lessons' texts use (lessongen lint), the lesson pages' template and budgets
# (lessongen words -check), and what make diff-N shows a learner; and that everything
# builds for macOS
# (scripts/cross-compile.sh: about 17 minutes per architecture the first time a machine
# meets a pin, seconds after).
# It regenerates the tracks' controller-gen outputs in place, and says which ones changed.
#
# Usage: scripts/verify.sh
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"
source "$ROOT/scripts/lib/shellcheck.sh"
cd "$ROOT"

"$ROOT/scripts/pins.sh" check

# Learners mostly run a stock Mac: bash 3.2 and BSD's tools (scripts/tools/shlint).
tool shlint -root "$ROOT"
# ShellCheck (settings: .shellcheckrc) on the same shell: quoting, unchecked cd, ...
run_shellcheck
say "ShellCheck finds nothing in the scripts"

unformatted=$(gofmt -l shared tracks solutions lessons scripts)
[[ -z $unformatted ]] || die "gofmt would change these files (run gofmt -w):"$'\n'"$unformatted"
say "Every Go file is formatted"

# Sample output in the docs comes from real runs, which must not leak the folder they ran
# in: a learner's checkout is elsewhere. Walkthroughs print paths from the top of it.
# (/path/to/workshop is a placeholder, and says so.)
leaks=$(grep -nE "(^|[ '\"(])/[^ '\"]+/(solutions|lessons|scripts|shared|tracks|\.cache)/" README.md docs/*.md shared/*.md |
  grep -v '/path/to/workshop/' || true)
[[ -z $leaks ]] || die "the docs show paths of the checkout they were made in; make them relative to its top:"$'\n'"$leaks"
say "The docs show no paths of one machine"

workshop symptoms-check
say "Every known symptom names an entry of shared/TROUBLESHOOTING.md and matches its example"

tracks=()
while read -r track; do tracks+=("tracks/$track"); done < <(track_lessons | cut -f1 | uniq)
# What controller-gen wrote into the tracks, kept to compare with what it writes now.
before=$(mktemp -d)
trap 'rm -rf "$before"' EXIT
# copy_outputs TRACK DEST copies controller-gen's outputs in TRACK to DEST, in their folders.
copy_outputs() {
  local outputs
  outputs=$(workshop generated-files "$1")
  mkdir -p "$2"
  # shellcheck disable=SC2086 # one path a word: the outputs' paths have no spaces
  (cd "$1" && tar -cf - $outputs) | tar -xf - -C "$2"
}
for track in ${tracks[@]+"${tracks[@]}"}; do
  copy_outputs "$track" "$before/$track"
done
say "Regenerating the DeepCopy, CRDs and RBAC of ${tracks[*]+${tracks[*]}}"
"$ROOT/scripts/generate.sh" ${tracks[@]+"${tracks[@]}"}
for track in ${tracks[@]+"${tracks[@]}"}; do
  copy_outputs "$track" "$before/now/$track"
  changed=$(diff -rq "$before/$track" "$before/now/$track" || true)
  [[ -z $changed ]] || die "generated files of $track were out of date (make generate has now rewritten them; commit them):"$'\n'"$changed"
done
say "The tracks' generated files are up to date"
# dist/ (install.yaml, the Helm chart's files/) follows config/: in the tracks, and in
# each solution, which takes its track's.
"$ROOT/scripts/dist.sh" check ${tracks[@]+"${tracks[@]}"} solutions/*/
say "Every dist/ is up to date with its config/"

"$ROOT/scripts/lessons.sh" check

# golangci-lint, pinned and built from source (scripts/lint): about 4 minutes the first
# time, then seconds. The tracks hold every line of the solutions and lessons, which are
# generated from them; shared/ and the tools are the rest of the Go.
say "Building golangci-lint $GOLANGCI_LINT_VERSION (scripts/lint): about 4 minutes the first time, seconds after"
(cd "$ROOT/scripts/lint" && GOWORK=off go build -trimpath -o "$CACHE/tools/golangci-lint" github.com/golangci/golangci-lint/v2/cmd/golangci-lint)
for module in shared tracks/* scripts/tools; do
  gowork=
  [[ $module == scripts/tools ]] && gowork=off
  (cd "$ROOT/$module" && GOWORK=$gowork "$CACHE/tools/golangci-lint" run -c "$ROOT/.golangci.yml" ./...) ||
    die "golangci-lint finds problems in $module (above)"
done
say "golangci-lint finds nothing in shared, the tracks and the tools"

lessongen lint
say "Every name, file and doc section the lessons' TODOs and hints give is in their solutions"
tool lessongen -root "$ROOT" words -check >/dev/null
say "Every lesson page has the template's sections, and the pages keep their word budgets (make words)"

# make diff-N shows a learner code: no generation marker, and no hunk that only moves
# imports (the lesson's stubs need fewer than the solution).
workshop=$(tool_path workshop)
for n in $(track_lessons | cut -f2 | cut -d- -f1); do
  out=$("$workshop" -root "$ROOT" diff "$n")
  markers=$(grep -nE '(//|#)(stage|lesson|mistake)' <<<"$out" || true)
  [[ -z $markers ]] || die "make diff-$((10#$n)) shows generation markers:"$'\n'"$markers"
  imports=$(awk '/^@@/ {if (hunk && only) print hunk; hunk = $0; only = 1; next}
    /^[-+][^-+]/ && $0 !~ /^[-+][[:space:]]*("[^"]*"|[A-Za-z0-9_.]+ "[^"]*")$/ {only = 0}
    END {if (hunk && only) print hunk}' <<<"$out")
  [[ -z $imports ]] || die "make diff-$((10#$n)) shows hunks that change only imports:"$'\n'"$imports"
done
say "make diff-N shows only code, for every lesson"

"$ROOT/scripts/cross-compile.sh"
