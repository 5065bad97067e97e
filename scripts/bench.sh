#!/usr/bin/env bash
# Benchmarks a workshop controller against its built-in counterpart on a fresh embedded
# cluster of its own (kwok-workshop-bench), and prints the figures.
#
# Usage: scripts/bench.sh imoocpod
#   BENCH_STAGE=solutions/01-imoocpod   benchmark an older stage
#   MANAGER_FLAGS=--kube-api-qps=1000   run the manager with more flags
source "$(dirname "$0")/lib/common.sh"

workload=${1:?usage: $0 imoocpod}
case $workload in
  imoocpod) stage=${BENCH_STAGE:-$(ls -d "$ROOT"/solutions/0[12]-*/ | tail -n 1)}; nodes=10 ;;
  *) die "no benchmark for '$workload' (known: imoocpod)" ;;
esac
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
