#!/usr/bin/env bash
# Benchmarks a workshop controller against its built-in counterpart on a fresh embedded
# cluster of its own (kwok-workshop-bench), and prints the figures.
#
# Usage: scripts/bench.sh imoocpod|mydaemonset
#   BENCH_STAGE=solutions/01-imoocpod   benchmark an older stage
#   MANAGER_FLAGS=--kube-api-qps=1000   run the manager with more flags
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

workload=${1:?usage: $0 imoocpod|mydaemonset}
case $workload in
  imoocpod) stage=${BENCH_STAGE:-$(ls -d "$ROOT"/solutions/0[12]-*/ | tail -n 1)}; nodes=10 ;;
  # One pod per node: the nodes are the scale.
  mydaemonset) stage=${BENCH_STAGE:-$(newest_with config/samples/apps_v1_mydaemonset.yaml)}; nodes=200 ;;
  *) die "no benchmark for '$workload' (known: imoocpod, mydaemonset)" ;;
esac
[[ -n $stage ]] || die "no solution has the $workload API yet"
stage=${stage%/}

export WORKSHOP_CLUSTER=workshop-bench PATH="$CACHE/bin/current:$PATH"
"$ROOT/scripts/cluster.sh" down
trap '[[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null; "$ROOT/scripts/cluster.sh" down' EXIT
# Each kwok node takes 110 pods, like a default kubelet.
"$ROOT/scripts/cluster.sh" up "$nodes"
KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
export KUBECONFIG

say "Installing the CRDs of ${stage#"$ROOT"/} and starting its manager"
kubectl apply --server-side -f "$stage/config/crd/bases" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=30s >/dev/null
mkdir -p "$CACHE/stage"
(cd "$stage" && go build -o "$CACHE/stage/manager-bench" ./cmd)
# MANAGER_FLAGS passes more flags, e.g. MANAGER_FLAGS=--kube-api-qps=1000 to see what
# the client-side rate limit costs.
# shellcheck disable=SC2086
"$CACHE/stage/manager-bench" --metrics-bind-address 0 --health-probe-bind-address 0 --zap-log-level error \
  ${MANAGER_FLAGS:-} >"$CACHE/stage/manager-bench.log" 2>&1 &
pid=$!

say "Running the benchmark"
(cd "$ROOT/shared" && go run ./cmd/scalebench -workload "$workload")
