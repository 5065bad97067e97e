#!/usr/bin/env bash
# Benchmarks a workshop controller against its built-in counterpart on a fresh embedded
# cluster of its own (kwok-workshop-bench), and prints the figures.
#
# Usage: scripts/bench.sh imoocpod|mydaemonset|nodepool|sidecarset
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
# nodepool has no built-in counterpart: it measures a NodePool of 500 of 1000 nodes.
#
# kube-controller-manager, which runs the ReplicaSet and DaemonSet controllers, keeps its
# default client limits (20 queries per second, burst 30); the workshop's managers have 100
# and 200 (NodePool's 300 and 600, sized for a change on a pool of 500 nodes).
# MANAGER_FLAGS='--kube-api-qps=20 --kube-api-burst=30' makes them equal.
source "$(dirname "$0")/lib/common.sh"

# newest_with FILE [TRACK] prints the newest solution that has FILE (of TRACK only).
newest_with() {
  local found
  found=$(ls -d "$ROOT"/solutions/*-"${2:-}"*/"$1" 2>/dev/null | tail -n 1)
  echo "${found%/"$1"}"
}

workload=${1:?usage: $0 imoocpod|mydaemonset|nodepool|sidecarset}
case $workload in
  # solutions/12-clientgo serves the same API: it is the second ImoocPod contender.
  imoocpod) stage=${BENCH_STAGE:-$(newest_with config/samples/apps_v1_imoocpod.yaml imoocpod)}; nodes=10 ;;
  # One pod per node: the nodes are the scale. 10,000 unrelated pods are 50 a node.
  mydaemonset) stage=${BENCH_STAGE:-$(newest_with config/samples/apps_v1_mydaemonset.yaml)}; nodes=200 ;;
  nodepool) stage=${BENCH_STAGE:-$(newest_with config/samples/nodes_v1_nodepool.yaml)}; nodes=1000 ;;
  # 10,000 pods at 110 a node need 91 nodes.
  sidecarset) stage=${BENCH_STAGE:-$(newest_with config/samples/sidecars_v1_sidecarset.yaml)}; nodes=100 ;;
  *) die "no benchmark for '$workload' (known: imoocpod, mydaemonset, nodepool, sidecarset)" ;;
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
# stop_manager stops the last manager started, and waits until it has exited.
stop_manager() {
  kill -TERM "${pids[-1]}" 2>/dev/null || true
  wait "${pids[-1]}" 2>/dev/null || true
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
results=()
[[ $workload == imoocpod ]] && results=(-results "$CACHE/stage/bench-imoocpod.json")
tool scalebench -workload "$workload" "${results[@]}" ||
  die "the benchmark failed; the manager's log is $CACHE/stage/manager-bench.log"

clientgo=$(newest_with config/samples/apps_v1_imoocpod.yaml clientgo)
if [[ $workload == imoocpod && -n $clientgo ]]; then
  say "Stopping it; starting the ImoocPod controller of ${clientgo#"$ROOT"/} with the same flags"
  stop_manager
  # The same client limits: both managers default to --kube-api-qps 100 --kube-api-burst
  # 200, and both get MANAGER_FLAGS. A probe address, to wait for its caches.
  # shellcheck disable=SC2086
  start_manager manager-bench-clientgo "$clientgo" 28090 29490 --health-probe-bind-address 127.0.0.1:28093 ${MANAGER_FLAGS:-}
  for _ in $(seq 100); do
    curl -fs http://127.0.0.1:28093/readyz >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -fs http://127.0.0.1:28093/readyz >/dev/null 2>&1 ||
    die "the client-go manager did not become ready; its log is $CACHE/stage/manager-bench-clientgo.log"
  tool scalebench -workload imoocpod-clientgo -results "$CACHE/stage/bench-imoocpod.json" ||
    die "the benchmark failed; the manager's log is $CACHE/stage/manager-bench-clientgo.log"
fi

if [[ $workload == sidecarset ]]; then
  # The manager counts every pod its SidecarSets select: scalebench left one that selects
  # the 10,000 pods created now, which the webhook injects on the way.
  say "Measuring the memory of ${stage#"$ROOT"/}'s manager with 10,000 more pods, all of them selected"
  tool scalebench -workload unrelated-pods -unrelated-pods 10000 \
    -managers "${stage#"$ROOT"/solutions/}=http://127.0.0.1:28090/metrics" ||
    die "the benchmark failed; the manager's log is $CACHE/stage/manager-bench.log"
fi

if [[ $workload == mydaemonset ]]; then
  say "Starting a second manager of ${stage#"$ROOT"/}, with --cache-pods=all, to compare their memory"
  start_manager manager-bench-all "$stage" 28091 29491 --cache-pods=all
  name=${stage#"$ROOT"/solutions/}
  tool scalebench -workload unrelated-pods -unrelated-pods 10000 \
    -managers "$name (own pods)=http://127.0.0.1:28090/metrics,$name (every pod)=http://127.0.0.1:28091/metrics" ||
    die "the benchmark failed; the managers' logs are $CACHE/stage/manager-bench*.log"
fi
