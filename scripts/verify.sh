#!/usr/bin/env bash
# Fails when anything derived is out of date: version pins, code formatting, what
# controller-gen generates for each track's source (its last solution), and the earlier
# stages and lessons generated from the sources (scripts/lessons.sh check).
# Run it on a clean checkout (CI does): it regenerates the sources' files in place.
#
# Usage: scripts/verify.sh
source "$(dirname "$0")/lib/common.sh"
cd "$ROOT"

"$ROOT/scripts/pins.sh" check

unformatted=$(gofmt -l shared solutions lessons scripts)
[[ -z $unformatted ]] || die "gofmt would change these files (run gofmt -w):"$'\n'"$unformatted"
say "Every Go file is formatted"

# Sample output in the docs comes from real runs, which must not leak the folder they ran
# in: a learner's checkout is elsewhere. Walkthroughs print paths from the top of it.
# (/path/to/workshop is a placeholder, and says so.)
leaks=$(grep -nE "(^|[ '\"(])/[^ '\"]+/(solutions|lessons|scripts|shared|\.cache)/" README.md docs/*.md shared/*.md |
  grep -v '/path/to/workshop/' || true)
[[ -z $leaks ]] || die "the docs show paths of the checkout they were made in; make them relative to its top:"$'\n'"$leaks"
say "The docs show no paths of one machine"

source "$ROOT/scripts/lib/symptoms.sh"
check_symptoms
say "Every known symptom names an entry of shared/TROUBLESHOOTING.md and matches its example"

sources=()
while read -r line; do sources+=("solutions/${line##* }"); done < <("$ROOT/scripts/lessons.sh" tracks)
say "Regenerating the DeepCopy, CRDs and RBAC of ${sources[*]}"
"$ROOT/scripts/generate.sh" "${sources[@]}"
if git rev-parse --git-dir >/dev/null 2>&1; then
  # What generation changed in the working tree, or added without git knowing it.
  changed=$(git diff --name-only -- "${sources[@]}"; git ls-files --others --exclude-standard -- "${sources[@]}")
  [[ -z $changed ]] || die "generated files of the track sources are out of date (make generate); commit these:"$'\n'"$changed"
  say "The track sources' generated files are up to date"
else
  warn "not a git checkout: cannot tell whether the generated files changed"
fi

# Lesson 12 rebuilds lesson 02's controller on client-go: it must serve the very same API.
crd=config/crd/bases/apps.workshop.dev_imoocpods.yaml
diff -q "solutions/02-imoocpod-workflow/$crd" "solutions/12-clientgo/$crd" >/dev/null ||
  die "solutions/12-clientgo's ImoocPod CRD differs from solutions/02-imoocpod-workflow's: keep api/apps/v1/imoocpod_types.go the same in both"
say "Solutions 02 and 12 serve the same ImoocPod API"

"$ROOT/scripts/lessons.sh" check
