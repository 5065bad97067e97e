#!/usr/bin/env bash
# Benchmarks a workshop controller against its built-in counterpart on a fresh embedded
# cluster of its own (kwok-workshop-bench), and prints the figures.
#
# Usage: scripts/bench.sh imoocpod|mydaemonset|nodepool
#   BENCH_STAGE=solutions/01-imoocpod   benchmark an older stage
#   MANAGER_FLAGS=--kube-api-qps=1000   run the manager with more flags
#
# mydaemonset then measures what the manager's pod cache costs: it starts a second
# manager of the same stage with --cache-pods=all, creates 10,000 pods no workshop
# controller made, and compares the memory both managers spent on them.
#
# nodepool has no built-in counterpart: it measures a NodePool of 500 of 1000 nodes.
#
# kube-controller-manager, which runs the ReplicaSet and DaemonSet controllers, keeps its
# default client limits (20 queries per second, burst 30); the workshop's manager has 100
# and 200. MANAGER_FLAGS='--kube-api-qps=20 --kube-api-burst=30' makes them equal.
source "$(dirname "$0")/lib/common.sh"

# newest_with FILE prints the newest solution that has FILE.
newest_with() {
  local found
  found=$(ls -d "$ROOT"/solutions/*/"$1" 2>/dev/null | tail -n 1)
  echo "${found%/"$1"}"
}

workload=${1:?usage: $0 imoocpod|mydaemonset|nodepool}
case $workload in
  imoocpod) stage=${BENCH_STAGE:-$(newest_with config/samples/apps_v1_imoocpod.yaml)}; nodes=10 ;;
  # One pod per node: the nodes are the scale. 10,000 unrelated pods are 50 a node.
  mydaemonset) stage=${BENCH_STAGE:-$(newest_with config/samples/apps_v1_mydaemonset.yaml)}; nodes=200 ;;
  nodepool) stage=${BENCH_STAGE:-$(newest_with config/samples/nodes_v1_nodepool.yaml)}; nodes=1000 ;;
  *) die "no benchmark for '$workload' (known: imoocpod, mydaemonset, nodepool)" ;;
esac
[[ -n $stage ]] || die "no solution has the $workload API yet"
stage=${stage%/}

# start_manager NAME STAGE METRICS_PORT WEBHOOK_PORT [FLAGS...] builds the stage's manager
# and starts it in the background, serving its metrics on METRICS_PORT.
pids=()
start_manager() {
  local name=$1 dir=$2 metrics=$3 webhook=$4
  shift 4
  (cd "$dir" && go build -o "$CACHE/stage/$name" ./cmd)
  "$CACHE/stage/$name" --metrics-bind-address "127.0.0.1:$metrics" --health-probe-bind-address 0 \
    --webhook-port "$webhook" --webhook-cert-dir "$CACHE/stage/certs-bench" --zap-log-level error \
    "$@" >"$CACHE/stage/$name.log" 2>&1 &
  pids+=($!)
}

export WORKSHOP_CLUSTER=workshop-bench PATH="$CACHE/bin/current:$PATH"
"$ROOT/scripts/cluster.sh" down
trap 'kill "${pids[@]}" 2>/dev/null; "$ROOT/scripts/cluster.sh" down' EXIT
# Each kwok node takes 110 pods, like a default kubelet.
"$ROOT/scripts/cluster.sh" up "$nodes"
KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
export KUBECONFIG

say "Installing the CRDs of ${stage#"$ROOT"/} and starting its manager"
kubectl apply --server-side -f "$stage/config/crd/bases" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=30s >/dev/null
mkdir -p "$CACHE/stage"
# A stage with webhooks gets them, served by its manager on this machine (as make
# lesson-N does); the certificate also serves the second manager's webhook server,
# whose configurations are not installed.
if [[ -f $stage/config/webhook/manifests.yaml ]]; then
  tool localwebhook -webhooks "$stage/config/webhook" -port 29490 -cert-dir "$CACHE/stage/certs-bench" >/dev/null
fi
# MANAGER_FLAGS passes more flags, e.g. MANAGER_FLAGS=--kube-api-qps=1000 to see what
# the client-side rate limit costs.
# shellcheck disable=SC2086
start_manager manager-bench "$stage" 28090 29490 ${MANAGER_FLAGS:-}
say "Running the benchmark"
tool scalebench -workload "$workload" ||
  die "the benchmark failed; the manager's log is $CACHE/stage/manager-bench.log"

if [[ $workload == mydaemonset ]]; then
  say "Starting a second manager of ${stage#"$ROOT"/}, with --cache-pods=all, to compare their memory"
  start_manager manager-bench-all "$stage" 28091 29491 --cache-pods=all
  name=${stage#"$ROOT"/solutions/}
  tool scalebench -workload unrelated-pods -unrelated-pods 10000 \
    -managers "$name (own pods)=http://127.0.0.1:28090/metrics,$name (every pod)=http://127.0.0.1:28091/metrics" ||
    die "the benchmark failed; the managers' logs are $CACHE/stage/manager-bench*.log"
fi
