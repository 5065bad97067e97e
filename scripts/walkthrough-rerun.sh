#!/usr/bin/env bash
# A walkthrough run with a broken controller must not make the next runs fail. A learner's
# run of lesson 05 whose RuntimeClass had no controller OwnerReference left that
# RuntimeClass behind, and every later run, the correct code's included, failed 6 times:
# walkthroughs now start by removing what an earlier run of them left (remove_leftovers).
#
# walkthrough_rerun_check proves it on the current cluster: walkthrough 05 with the
# solution's manager (the reference), then with a broken copy of it whose newRuntimeClass
# sets no controller reference (it must fail, and leave a RuntimeClass without an owner),
# then with the solution's manager twice: both must end as the reference did.
#
# Usage: scripts/walkthrough-rerun.sh          on the current workshop cluster, or the
#                                              embedded one, as make lesson-N picks it
#   or, from a script with a cluster:  source scripts/walkthrough-rerun.sh; walkthrough_rerun_check
# It honours what scripts/run-stage.sh does: WORKSHOP_CLUSTER, METRICS_PORT, PROBE_PORT,
# WEBHOOK_PORT, STAGE_CACHE.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

# rerun_walkthrough NAME KIND N runs scripts/run-stage.sh KIND N, its output in
# STAGE_CACHE/rerun-NAME.log, and prints its result: "N passed, M failed", its time and
# the line that says what it removed first.
rerun_walkthrough() {
  local name=$1 out start result
  out="$RERUN_DIR/rerun-$name.log"
  start=$(date +%s)
  "$ROOT/scripts/run-stage.sh" "$2" "$3" >"$out" 2>&1 || true
  result=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
  printf '%s in %ss; %s\n' "${result:-no summary}" "$(seconds_since "$start")" \
    "$(grep -m1 -E '^(Removing what|Nothing left)' "$out" || echo 'no line about leftovers')"
}

# broken_stage_05 writes solution 05 with the mistake runtimeclass-without-owner made
# (tracks/nodepool/lessons.yaml: newRuntimeClass sets no controller reference), and prints
# its folder. It builds outside the workspace (GOWORK=off), its replace of the shared
# module made absolute.
broken_stage_05() {
  local copy="$RERUN_DIR/broken-05"
  lessongen solution -to "$copy" -mistake runtimeclass-without-owner 5
  workshop generate-like "$copy" "$ROOT/solutions/05-nodepool"
  (cd "$copy" && go mod edit -replace "github.com/kube-workshop/operator-workshop/shared=$ROOT/shared")
  echo "$copy"
}

# walkthrough_rerun_check runs walkthrough 05 with the solution, with a broken copy of it,
# and twice again with the solution, and fails unless both reruns end as the first run
# did.
walkthrough_rerun_check() {
  local reference copy broken first second owners
  RERUN_DIR=${STAGE_CACHE:-$CACHE/stage}
  mkdir -p "$RERUN_DIR"
  say "Walkthrough 05 with solutions/05-nodepool: the reference"
  reference=$(rerun_walkthrough reference solutions 5)
  echo "  $reference" >&2
  say "Walkthrough 05 with a broken manager: newRuntimeClass sets no controller reference"
  copy=$(broken_stage_05)
  broken=$(GOWORK=off rerun_walkthrough broken "$copy" 5)
  echo "  $broken" >&2
  [[ $broken != "${reference%% in *}"* ]] || die "the broken manager passed walkthrough 05 as the solution did: the check tests nothing"
  owners=$(kubectl get runtimeclass node-pool-workshop-05 -o jsonpath='{.metadata.name} {.metadata.ownerReferences}' 2>/dev/null || true)
  [[ $owners == "node-pool-workshop-05 " ]] ||
    die "the broken run left no RuntimeClass without an owner (got '$owners'): the check tests nothing"
  say "It left the RuntimeClass node-pool-workshop-05 without an owner; walkthrough 05 with solutions/05-nodepool, twice"
  first=$(rerun_walkthrough first solutions 5)
  echo "  $first" >&2
  second=$(rerun_walkthrough second solutions 5)
  echo "  $second" >&2
  if [[ ${first%% in *} != "${reference%% in *}" || ${second%% in *} != "${reference%% in *}" ]]; then
    die "after a broken run, walkthrough 05 no longer ends as it did before (${reference%% in *}): see ${RERUN_DIR#"$ROOT"/}/rerun-first.log and rerun-second.log"
  fi
  say "Both runs after the broken one ended as the reference did: ${reference%% in *}"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  export PATH="$CACHE/bin/current:$PATH"
  source "$ROOT/scripts/lib/cluster.sh"
  use_cluster
  walkthrough_rerun_check
fi
