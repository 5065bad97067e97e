#!/usr/bin/env bash
# Benchmarks a workshop controller against its built-in counterpart on a fresh embedded
# cluster of its own (kwok-workshop-bench), and prints the figures.
#
# Usage: scripts/bench.sh imoocpod|mydaemonset|nodepool|sidecarset|sidecarset-heap|admission
#   BENCH_SIZE=short                     a fifth of the scale, as make test runs it
#   BENCH_STAGE=solutions/01-imoocpod   benchmark an older stage
#   MANAGER_FLAGS=--kube-api-qps=1000   run the manager with more flags
#
# imoocpod then stops the manager and measures the same ImoocPod again with the
# controller of solutions/12-clientgo (client-go without controller-runtime), at the same
# client limits and with MANAGER_FLAGS too, and compares the two.
#
# mydaemonset then measures what the manager's pod cache costs: it starts a second
# manager of the same stage with --cache-pods=all, creates 10,000 pods no workshop
# controller made, and compares the memory both managers spent on them.
#
# sidecarset has no counterpart either: it measures what the pod webhook adds to a pod
# creation (p50 and p99 of 500), then the manager's memory with 10,000 selected pods.
#
# sidecarset-heap starts two managers of the newest SidecarSet stage (lesson 17's), one
# with lesson 11's transform (TrimPod) and one with --trim-pods=false, both serving
# Go's profiles, creates 10,000 pods, and prints their memory and the heap their
# informers hold, read from each one's heap profile.
#
# admission measures one rule, lesson 04's pull-policy default, run by the MyDaemonSet
# manager's mutating webhook and by the MutatingAdmissionPolicy of lesson 16 (its
# config/policies), inside the API server: p50 and p99 of 500 dry-run creates of each,
# and of neither, side by side.
#
# nodepool has no built-in counterpart: it measures a NodePool of 500 of 1000 nodes.
#
# Each figure with a target fails the run when it misses it (scalebench prints them all,
# met or missed): pod creates and node writes, the managers' memory, and, at full scale
# only, the times against the built-in controllers.
#
# kube-controller-manager, which runs the ReplicaSet and DaemonSet controllers, keeps its
# default client limits (20 queries per second, burst 30); the workshop's managers have 100
# and 200 (NodePool's 300 and 600, sized for a change on a pool of 500 nodes).
# MANAGER_FLAGS='--kube-api-qps=20 --kube-api-burst=30' makes them equal.
#
# Its cluster and the managers' ports, each with a variable for running beside another:
#   BENCH_CLUSTER=workshop-bench   the cluster, kwok-$BENCH_CLUSTER
#   BENCH_METRICS_PORT=28090 BENCH_PROBE_PORT=28093 BENCH_WEBHOOK_PORT=29490
#                                  the first manager's; the second one (mydaemonset,
#                                  sidecarset-heap) uses the next port of each, and
#                                  sidecarset-heap's profiles the metrics port + 5 and + 6
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

workload=${1:?usage: $0 imoocpod|mydaemonset|nodepool|sidecarset|sidecarset-heap|admission}
# BENCH_SIZE=short runs the same benchmark at a fifth of its scale or less, with the same
# targets: make test runs it, so that a controller that got slower or chattier fails
# there, not in the next person's bench.
size=${BENCH_SIZE:-full}
case $size in
  full) pods=500 unrelated=10000 times=true settle=30s ;;
  short) pods=100 unrelated=1000 times=false settle=10s ;;
  *) die "BENCH_SIZE: '$size' is not a size of the benchmarks (full, short)" ;;
esac
case $workload in
  # solutions/12-clientgo serves the same API, lesson 02's: it is the second ImoocPod
  # contender. Lesson 13's v2 would need its manager up to convert for the v1-only one.
  imoocpod) nodes=10 BENCH_STAGE=${BENCH_STAGE:-$(stage_dir solutions 2)} ;;
  # One pod per node: the nodes are the scale. 10,000 unrelated pods are 50 a node.
  mydaemonset) nodes=$((pods * 2 / 5)) ;;
  # Every other node joins the pool.
  nodepool) nodes=$((pods * 2)) ;;
  # The unrelated pods and the three rounds of admitted pods, at 110 a node at most.
  sidecarset) nodes=$(((unrelated + 3 * pods) / 100 + 1)) ;;
  # The unrelated pods only, at 110 a node at most.
  sidecarset-heap) nodes=$((unrelated / 100 + 1)) ;;
  # A few nodes: the MyDaemonSets are dry runs, no pod is made.
  admission) nodes=3 BENCH_STAGE=${BENCH_STAGE:-$(newest_solution mydaemonset)} ;;
  *) die "no benchmark for '$workload' (known: imoocpod, mydaemonset, nodepool, sidecarset, sidecarset-heap, admission)" ;;
esac
stage=${BENCH_STAGE:-$(newest_solution "${workload%-heap}")} || die "no solution has the ${workload%-heap} API yet"
stage=${stage%/}

export WORKSHOP_CLUSTER=${BENCH_CLUSTER:-workshop-bench} PATH="$CACHE/bin/current:$PATH"
METRICS_PORT=${BENCH_METRICS_PORT:-28090}
PROBE_PORT=${BENCH_PROBE_PORT:-28093}
WEBHOOK_PORT=${BENCH_WEBHOOK_PORT:-29490}
source "$ROOT/scripts/lib/manager.sh"
mkdir -p "$CACHE/stage"

# start_manager NAME STAGE PORT_OFFSET [FLAGS...] builds the stage's manager, starts it
# in the background on the ports + PORT_OFFSET (metrics, probes, webhooks) and waits until
# it is ready. Its log is .cache/stage/NAME.log.
pids=()
start_manager() {
  local name=$1 dir=$2 offset=$3 flags=()
  shift 3
  manager_build "$dir" "$CACHE/stage/$name"
  # A manager that serves its metrics over HTTPS, to the callers the API server allows
  # (--metrics-secure: SidecarSet, MyDaemonSet from stage 04 on), serves them in plain
  # HTTP here, on this machine only: scalebench reads the managers' memory from them.
  # Its own -h says whether it has the flag.
  # (Read whole first: grep -q would stop reading at the match, and the manager, killed
  # by the broken pipe, would fail the pipeline.)
  local usage
  usage=$("$CACHE/stage/$name" -h 2>&1 || true)
  if [[ $usage == *-metrics-secure* ]]; then
    flags=(--metrics-secure=false)
  fi
  : >"$CACHE/stage/$name.log"
  manager_start --wait 30 "$CACHE/stage/$name" "$CACHE/stage/$name.log" $((PROBE_PORT + offset)) \
    --metrics-bind-address "127.0.0.1:$((METRICS_PORT + offset))" --webhook-port $((WEBHOOK_PORT + offset)) \
    --webhook-cert-dir "$CACHE/stage/certs-bench" --zap-log-level error ${flags[@]+"${flags[@]}"} "$@"
  pids+=("$MANAGER_PID")
}
# stop_manager stops the last manager started, and waits until it has exited.
stop_manager() { manager_stop "${pids[${#pids[@]}-1]}"; }

"$ROOT/scripts/cluster.sh" down
trap 'for pid in ${pids[@]+"${pids[@]}"}; do manager_stop "$pid"; done; "$ROOT/scripts/cluster.sh" down' EXIT
# Each kwok node takes 110 pods, like a default kubelet.
"$ROOT/scripts/cluster.sh" up "$nodes"
KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
export KUBECONFIG

say "Installing the CRDs of ${stage#"$ROOT"/} and starting its manager"
manager_install_crds "$stage"
# A stage with webhooks gets them, served by its manager on this machine (as make
# lesson-N does); the certificate also serves the second manager's webhook server,
# whose configurations are not installed.
if manager_has_webhooks "$stage"; then
  manager_install_webhooks "$stage" 127.0.0.1 "$WEBHOOK_PORT" "$CACHE/stage/certs-bench"
fi
# MANAGER_FLAGS passes more flags, e.g. MANAGER_FLAGS=--kube-api-qps=1000 to see what
# the client-side rate limit costs.
# shellcheck disable=SC2086
start_manager manager-bench "$stage" 0 ${MANAGER_FLAGS:-}
if [[ $workload == sidecarset-heap ]]; then
  name=${stage#"$ROOT"/solutions/}
  pprof=$((METRICS_PORT + 5))
  # The first one is ready: start the second one, then read both.
  stop_manager
  start_manager manager-bench "$stage" 0 --pprof-bind-address "127.0.0.1:$pprof"
  start_manager manager-bench-whole "$stage" 1 --trim-pods=false --pprof-bind-address "127.0.0.1:$((pprof + 1))"
  say "Measuring two managers of ${stage#"$ROOT"/}, with and without TrimPod, with $unrelated more pods"
  tool scalebench -check-times="$times" -workload unrelated-pods -unrelated-pods "$unrelated" -settle "$settle" \
    -managers "$name (TrimPod)=http://127.0.0.1:$METRICS_PORT/metrics,$name (whole pods)=http://127.0.0.1:$((METRICS_PORT + 1))/metrics" \
    -pprof "http://127.0.0.1:$pprof,http://127.0.0.1:$((pprof + 1))" -heap-per-pod 4 ||
    die "the benchmark failed; the managers' logs are $CACHE/stage/manager-bench*.log"
  exit 0
fi

say "Running the benchmark"
results=()
[[ $workload == imoocpod ]] && results=(-results "$CACHE/stage/bench-imoocpod.json")
bench_workload=$workload
if [[ $workload == admission ]]; then
  [[ -d $stage/config/policies ]] || die "${stage#"$ROOT"/} has no config/policies: the admission benchmark needs a stage of lesson 16 or later"
  bench_workload=mydaemonset-admission results=(-policies "$stage/config/policies")
fi
tool scalebench -check-times="$times" -workload "$bench_workload" -replicas "$pods" -pool-nodes "$pods" ${results[@]+"${results[@]}"} ||
  die "the benchmark failed; the manager's log is $CACHE/stage/manager-bench.log"

clientgo=$(newest_solution clientgo) || clientgo=
if [[ $workload == imoocpod && -n $clientgo ]]; then
  say "Stopping it; starting the ImoocPod controller of ${clientgo#"$ROOT"/} with the same flags"
  stop_manager
  # The same client limits: both managers default to --kube-api-qps 100 --kube-api-burst
  # 200, and both get MANAGER_FLAGS. Ready once its caches are filled.
  # shellcheck disable=SC2086
  start_manager manager-bench-clientgo "$clientgo" 0 ${MANAGER_FLAGS:-}
  tool scalebench -check-times="$times" -workload imoocpod-clientgo -replicas "$pods" -results "$CACHE/stage/bench-imoocpod.json" ||
    die "the benchmark failed; the manager's log is $CACHE/stage/manager-bench-clientgo.log"
fi

if [[ $workload == sidecarset ]]; then
  # The manager counts every pod its SidecarSets select: scalebench left one that selects
  # the 10,000 pods created now, which the webhook injects on the way.
  say "Measuring the memory of ${stage#"$ROOT"/}'s manager with $unrelated more pods, all of them selected"
  tool scalebench -check-times="$times" -workload unrelated-pods -unrelated-pods "$unrelated" -settle "$settle" \
    -managers "${stage#"$ROOT"/solutions/}=http://127.0.0.1:$METRICS_PORT/metrics" -heap-per-pod 4 ||
    die "the benchmark failed; the manager's log is $CACHE/stage/manager-bench.log"
fi

if [[ $workload == mydaemonset ]]; then
  say "Starting a second manager of ${stage#"$ROOT"/}, with --cache-pods=all, to compare their memory"
  start_manager manager-bench-all "$stage" 1 --cache-pods=all
  name=${stage#"$ROOT"/solutions/}
  tool scalebench -check-times="$times" -workload unrelated-pods -unrelated-pods "$unrelated" -settle "$settle" \
    -managers "$name (own pods)=http://127.0.0.1:$METRICS_PORT/metrics,$name (every pod)=http://127.0.0.1:$((METRICS_PORT + 1))/metrics" -heap-base 8 -heap-per-pod 0.5 ||
    die "the benchmark failed; the managers' logs are $CACHE/stage/manager-bench*.log"
fi
