#!/usr/bin/env bash
# Everything a maintainer needs green, in the order that fails fastest:
#   1. derived files up to date (scripts/verify.sh), and a hand-edited generated stage
#      caught
#   2. unit and envtest integration tests of shared/, the tools and every solution; every
#      solution's config/default builds with kustomize
#   3. every lesson's tasks, solved one at a time, turn exactly their own tests green;
#      beside them, every test task graded both ways (the solution's test catches every
#      bug, an empty or idle test none), and every mistake of the tracks' lessons.yaml
#      fails its stage's first test, with a message that names it
#   4. every fuzz target runs for FUZZTIME (10s)
#   5. beside 3 and 4, in the background, in three lanes. One: end to end, no CRD name
#      clashes with a built-in kind's; every solution's walkthrough on a fresh embedded cluster; a
#      walkthrough run after a broken run of it ends as on a clean cluster
#      (scripts/walkthrough-rerun.sh); kubectl reads an object by kind after a CRD lost a
#      version and on a new cluster at an old one's address (scripts/discovery-check.sh);
#      then the fast fault tests (scripts/faults.sh): ImoocPod and MyDaemonSet managers
#      killed mid-work (`make faults` adds the control-plane restarts under a NodePool).
#      The second: the NodePool Helm chart and the capstone's installed, upgraded and
#      uninstalled (scripts/helm.sh); then the short form of every benchmark
#      (scripts/bench.sh, BENCH_SIZE=short), which fails on a missed target: node
#      writes, pod creates, memory (the times only at full scale). The third: the
#      capstone graded from outside: a scaffold without logic fails every row, naming
#      its requirement, and each requirement's marked mistake is caught by its row
#
# Usage: scripts/test.sh
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/processes.sh"
source "$ROOT/scripts/lib/fuzz.sh"
cd "$ROOT"
start=$(date +%s)
# Every process this run starts carries the marker: none may outlive it.
mark_processes test

# phase NAME starts timing a phase of the run (ending the one before); the summary at the
# end prints how long each took.
PHASES=()
phase_name=
phase_start=
phase() {
  local now
  now=$(date +%s)
  [[ -z $phase_name ]] || PHASES+=("$(printf '%5ss  %s' $((now - phase_start)) "$phase_name")")
  phase_name=$1
  phase_start=$now
  [[ -z $phase_name ]] || say "Phase: $phase_name"
}

phase "derived files up to date (scripts/verify.sh)"
"$ROOT/scripts/verify.sh"

# verify must catch a generated stage edited by hand: edit one, expect the check to fail.
say "A hand edit of a generated stage fails the check"
edited=solutions/01-imoocpod/internal/controller/imoocpod_controller.go
cp "$edited" "$CACHE/edited.go"
trap 'mv "$CACHE/edited.go" "$ROOT/$edited"' EXIT
echo "// An edit by hand." >>"$edited"
if "$ROOT/scripts/lessons.sh" check solutions/01-imoocpod >/dev/null 2>&1; then
  die "scripts/lessons.sh check passed with $edited edited by hand"
fi
mv "$CACHE/edited.go" "$edited"
trap - EXIT
say "It does"

# await_lane PID LOG WHAT waits for a job in the background (a lane, the mistakes, the
# tools' tests), prints its log, and fails the run if it failed.
await_lane() {
  local status=0
  wait "$1" || status=$?
  say "What $3 printed:"
  cat "$2" >&2
  ((status == 0)) || die "$3 failed (above; ${2#"$ROOT"/})"
}

solutions=(solutions/[0-9][0-9]-*)
# The Go package patterns of the solutions' modules, ./solutions/NN-name/... each.
packages=()
for solution in "${solutions[@]}"; do packages+=("./$solution/..."); done

phase "unit and envtest tests of shared/, scripts/tools and ${#solutions[@]} solutions; kustomize builds"
# A track's code is its last solution's, but for the markers (comments) and the module's
# path: go vet and the tests run on the solutions. go test vets nothing again. Both build
# with -trimpath: without the checkout's folder in its key, a package compiled in
# another clone of the same code is not compiled again.
go vet -trimpath ./shared/... ${packages[@]+"${packages[@]}"}
(cd scripts/tools && GOWORK=off go vet -trimpath ./...)
# The tools' tests run beside the solutions': the slowest of them (learner commands on a
# stock Mac, a cluster of their own) mostly wait, for about a minute and a half.
mkdir -p "$CACHE/test"
(cd scripts/tools && GOWORK=off go test -trimpath -count=1 -vet=off ./...) >"$CACHE/test/tools.log" 2>&1 &
tools_pid=$!
# Four packages at a time: much of an envtest is waiting on its API server. Test binaries
# link without debug information (-w), as the lessons' checks do: a failure's stack
# needs none, and they link faster.
# The capstone's tests are kubebuilder's scaffold's: their envtest finds etcd and
# kube-apiserver through KUBEBUILDER_ASSETS alone (shared/TROUBLESHOOTING.md, entry 21).
solutions_failed=0
KUBEBUILDER_ASSETS="$CACHE/bin/current" go test -trimpath -ldflags=-w -count=1 -p 4 -vet=off ./shared/... ${packages[@]+"${packages[@]}"} ||
  solutions_failed=1
await_lane "$tools_pid" "$CACHE/test/tools.log" "the tests of scripts/tools"
((solutions_failed == 0)) || die "a test of shared/ or of a solution failed (above)"

# A solution that deploys into a cluster (kind, with cert-manager) has config/default;
# nothing here can apply it, but it must at least build.
for solution in "${solutions[@]}"; do
  [[ -f $solution/config/default/kustomization.yaml ]] || continue
  module=$(awk '$1 == "module" {print $2; exit}' "$solution/go.mod")
  out=$("$CACHE/bin/current/kustomize" build "$solution/config/default" 2>&1 >/dev/null) ||
    die "kustomize build $solution/config/default fails, in $module:"$'\n'"$out"
  say "$solution/config/default builds with kustomize"
done

# end_to_end runs every solution's walkthrough on a fresh embedded cluster, then the
# fault tests, and writes how long each took to END_TO_END_TIMES, a phase a line (as
# charts_and_benches does).
END_TO_END_LOG="$CACHE/test/end-to-end.log"
END_TO_END_TIMES="$CACHE/test/end-to-end.times"
end_to_end() {
  local start
  start=$(date +%s)
  say "End to end: every solution's walkthrough on a fresh embedded cluster"
  # A cluster, manager ports and stage files of its own, so that a learner's cluster and
  # a running `make lesson-N` are left alone.
  export WORKSHOP_CLUSTER=workshop-test METRICS_PORT=28080 PROBE_PORT=28081 WEBHOOK_PORT=29443 \
    STAGE_CACHE="$CACHE/test/stage"
  "$ROOT/scripts/cluster.sh" down
  trap '"$ROOT/scripts/cluster.sh" down' EXIT
  "$ROOT/scripts/cluster.sh" up 3
  KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
  export KUBECONFIG
  # Before any CRD is installed, the cluster serves only built-in kinds: no name of ours
  # may be one of theirs (kubectl would pick one of the two).
  tool namecheck "$ROOT"/solutions/*/config/crd/bases/*.yaml
  local solution n
  for solution in "${solutions[@]}"; do
    n=$(basename "$solution"); n=${n%%-*}
    "$ROOT/scripts/run-stage.sh" solutions "$n"
  done
  # A walkthrough run with a broken manager must not make the next runs fail.
  source "$ROOT/scripts/walkthrough-rerun.sh"
  walkthrough_rerun_check
  # kubectl asks a CRD for a version it no longer serves: not after our scripts installed
  # it, nor on a new cluster at an old one's address. Restarts the cluster.
  source "$ROOT/scripts/discovery-check.sh"
  discovery_check
  printf '%5ss  %s\n' "$(seconds_since "$start")" "end to end: every solution's walkthrough on a fresh embedded cluster" >>"$END_TO_END_TIMES"

  start=$(date +%s)
  say "Fault tests: managers killed in the middle of their work (scripts/faults.sh)"
  "$ROOT/scripts/cluster.sh" down
  trap - EXIT
  "$ROOT/scripts/faults.sh" imoocpod
  "$ROOT/scripts/faults.sh" mydaemonset
  printf '%5ss  %s\n' "$(seconds_since "$start")" "fault tests: managers killed in the middle of their work (scripts/faults.sh)" >>"$END_TO_END_TIMES"
}

# charts_and_benches installs, upgrades and uninstalls the Helm chart, then runs the short
# benchmarks, each on a cluster of its own, beside end_to_end: both mostly wait on their
# clusters, and scripts/cluster.sh starts one cluster at a time.
CHARTS_AND_BENCHES_LOG="$CACHE/test/charts-and-benches.log"
charts_and_benches() {
  local start
  start=$(date +%s)
  say "The NodePool chart: lint, template, install, upgrade, uninstall, on a cluster of its own (scripts/helm.sh)"
  "$ROOT/scripts/helm.sh"
  printf '%5ss  %s\n' "$(seconds_since "$start")" "the NodePool chart: install, upgrade, uninstall (scripts/helm.sh)" >>"$END_TO_END_TIMES"

  start=$(date +%s)
  say "The capstone's chart, kubebuilder's helm plugin's: lint, template, install, upgrade, uninstall (scripts/helm.sh)"
  "$ROOT/scripts/helm.sh" "$ROOT/solutions/15-capstone"
  printf '%5ss  %s\n' "$(seconds_since "$start")" "the capstone's chart: install, upgrade, uninstall (scripts/helm.sh)" >>"$END_TO_END_TIMES"

  start=$(date +%s)
  say "Benchmarks, short form: each on a cluster of its own, every target but the times (scripts/bench.sh)"
  local workload
  for workload in imoocpod mydaemonset nodepool sidecarset admission; do
    BENCH_SIZE=short "$ROOT/scripts/bench.sh" "$workload"
  done
  printf '%5ss  %s\n' "$(seconds_since "$start")" "benchmarks, short form: every target but the times (scripts/bench.sh)" >>"$END_TO_END_TIMES"
}

# capstone_grading grades the capstone from outside as make check-15 does: the page's
# kubebuilder scaffold fails every row, and each marked mistake its own. A grading is a
# control plane, a manager and a suite that waits on them: it runs in a third lane, two
# at a time, rather than with the other mistakes in the foreground.
CAPSTONE_LOG="$CACHE/test/capstone.log"
capstone_grading() {
  local start
  start=$(date +%s)
  say "The capstone graded from outside: the page's kubebuilder scaffold fails every row, and each marked mistake its own"
  workshop capstone-scaffold 15
  JOBS=2 "$ROOT/scripts/lessons.sh" mistakes capstone
  printf '%5ss  %s\n' "$(seconds_since "$start")" "the capstone: a fresh scaffold and the marked mistakes, graded from outside" >>"$END_TO_END_TIMES"
}

# The three lanes run in the background from here to the end, beside the tasks' steps,
# the test tasks, the mistakes and fuzzing: their clusters and managers mostly wait,
# and a fuzz target runs for FUZZTIME whatever it gets. The steps' times, which make
# check-N's figures come from, are taken beside them all: they run high here
# (scripts/lessons.sh todos alone measures them as a learner waits). The lanes' output
# comes last.
say "End to end and fault tests start in the background (their log: ${END_TO_END_LOG#"$ROOT"/}), and beside them the charts and the benchmarks (${CHARTS_AND_BENCHES_LOG#"$ROOT"/}) and the capstone's grading (${CAPSTONE_LOG#"$ROOT"/})"
: >"$END_TO_END_TIMES"
(end_to_end) >"$END_TO_END_LOG" 2>&1 &
end_to_end_pid=$!
(charts_and_benches) >"$CHARTS_AND_BENCHES_LOG" 2>&1 &
charts_and_benches_pid=$!
(capstone_grading) >"$CAPSTONE_LOG" 2>&1 &
capstone_pid=$!
# stop_end_to_end stops them when a phase fails before they end: every process this run
# started (the lanes' and the failed phase's), and their clusters.
stop_end_to_end() {
  stop_survivors >/dev/null
  kill -0 "$end_to_end_pid" 2>/dev/null || kill -0 "$charts_and_benches_pid" 2>/dev/null ||
    kill -0 "$capstone_pid" 2>/dev/null || return 0
  local cluster
  for cluster in workshop-test workshop-faults workshop-helm workshop-bench; do
    WORKSHOP_CLUSTER=$cluster "$ROOT/scripts/cluster.sh" down >/dev/null 2>&1 || true
  done
  warn "stopped the end-to-end and fault tests before their end (their log: ${END_TO_END_LOG#"$ROOT"/})"
}
trap stop_end_to_end EXIT

phase "every lesson's tasks, solved one at a time, turn exactly their own tests green; beside them, every test task graded both ways and every marked mistake caught"
# The test tasks' gradings (one lesson at a time) and the marked mistakes run beside the
# steps, each in a scratch copy of its own; the builds of all three run at the lowest
# priority, below the tests, which mostly wait on their control planes. A lesson's empty
# test is graded by both the test tasks' proof and the step before its task: the run's
# memo of gradings lets the second read the first's grade.
rm -rf "$CACHE/test/grades"
export WORKSHOP_GRADE_MEMO="$CACHE/test/grades"
JOBS=1 "$ROOT/scripts/lessons.sh" testtasks >"$CACHE/test/testtasks.log" 2>&1 &
testtasks_pid=$!
"$ROOT/scripts/lessons.sh" mistakes >"$CACHE/test/mistakes.log" 2>&1 &
mistakes_pid=$!
# Step 0 is the lesson as the learner gets it: it compiles everywhere (go vet), and its
# first task fails.
"$ROOT/scripts/lessons.sh" todos
await_lane "$testtasks_pid" "$CACHE/test/testtasks.log" "the test tasks' gradings"
await_lane "$mistakes_pid" "$CACHE/test/mistakes.log" "the marked mistakes"

phase "fuzzing"
# Fuzz targets run their listed inputs (f.Add) in the tests above; here each also
# searches for new inputs, for a bounded time. go test -fuzz takes one target of one
# package per run. An input that fails is saved under the package's testdata/fuzz:
# commit it with the fix. Two targets run at a time, one worker each (fuzz_target): the
# two cores that one target would keep busy with two workers, in half the time.
FUZZTIME=${FUZZTIME:-10s}
# A target that several stages of a track share is fuzzed once, in the newest stage that
# has it.
# The targets fuzzed so far, as " NAME NAME ... " (bash 3.2 has no associative arrays).
fuzzed=" "
targets=0
lanes=("" "")
while IFS= read -r file; do
  while read -r target; do
    [[ $fuzzed != *" $target "* ]] || continue
    fuzzed+="$target "
    targets=$((targets + 1))
    lanes[targets % 2]+="$target ./$(dirname "$file")"$'\n'
  done < <(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/p' "$file")
done < <(grep -rl --include='*_test.go' '^func Fuzz' "${solutions[@]}" | sort -r)
# fuzz_lane TARGETS fuzzes each "TARGET PACKAGE" line of TARGETS in turn.
fuzz_lane() {
  local target package
  while read -r target package; do
    say "Fuzzing $target of $package for $FUZZTIME"
    fuzz_target "$FUZZTIME" "$target" "$package"
  done <<<"${1%$'\n'}"
}
say "Fuzzing $targets targets for $FUZZTIME each, two at a time (their logs: .cache/test/fuzz-0.log and fuzz-1.log)"
lane_pids=()
for lane in 0 1; do
  fuzz_lane "${lanes[lane]}" >"$CACHE/test/fuzz-$lane.log" 2>&1 &
  lane_pids+=($!)
done
fuzz_failed=0
for pid in ${lane_pids[@]+"${lane_pids[@]}"}; do wait "$pid" || fuzz_failed=1; done
cat "$CACHE/test/fuzz-0.log" "$CACHE/test/fuzz-1.log" >&2
((fuzz_failed == 0)) || die "a fuzz target failed (above)"

phase "end to end, fault tests, the charts, the benchmarks and the capstone's grading: the rest of their time"
await_lane "$end_to_end_pid" "$END_TO_END_LOG" "the end-to-end and fault tests"
await_lane "$charts_and_benches_pid" "$CHARTS_AND_BENCHES_LOG" "the charts' tests and the benchmarks"
await_lane "$capstone_pid" "$CAPSTONE_LOG" "the capstone's grading"
trap - EXIT

phase ""
no_survivors "make test"
say "All green in $(seconds_since "$start")s:"
printf '%s\n' ${PHASES[@]+"${PHASES[@]}"} >&2
echo "  and, in three lanes in the background beside the tasks, fuzzing and the mistakes:" >&2
cat "$END_TO_END_TIMES" >&2
