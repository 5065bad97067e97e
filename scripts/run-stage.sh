#!/usr/bin/env bash
# Runs lesson or solution N's manager against a cluster and walks through what it
# should do (scripts/walkthroughs/NN.sh), printing a pass or fail line per expectation.
#
# The cluster: the current kube context when it is kind-* or the embedded cluster's (or
# $WORKSHOP_ALLOW_CONTEXT); otherwise the embedded cluster, started if needed.
#
# Usage: scripts/run-stage.sh lessons|solutions N
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

kind=${1:?usage: $0 lessons|solutions N}
n=$(printf '%02d' "$((10#${2:?usage: $0 lessons|solutions N}))")
dir=$(stage_dir "$kind" "$n")
name="$kind/$(basename "$dir")"
walkthrough="$ROOT/scripts/walkthroughs/$n.sh"
[[ -f $walkthrough ]] || die "no walkthrough for stage $n ($walkthrough)"

export PATH="$CACHE/bin/current:$PATH"
source "$ROOT/scripts/lib/cluster.sh"
use_cluster

say "Regenerating the CRDs and RBAC of $name"
"$ROOT/scripts/generate.sh" "$dir"
say "Installing the CRDs of $name"
kubectl apply --server-side --force-conflicts -f "$dir/config/crd/bases" >/dev/null
kubectl wait --for=condition=Established crd --all --timeout=30s >/dev/null

mkdir -p "$CACHE/stage"
manager="$CACHE/stage/manager-$n"
log="$CACHE/stage/manager-$n.log"
say "Building the manager of $name"
(cd "$dir" && go build -o "$manager" ./cmd)

METRICS_PORT=${METRICS_PORT:-18080}
PROBE_PORT=${PROBE_PORT:-18081}
start_manager() {
  say "Starting the manager of $name $* (log: ${log#"$ROOT"/})"
  "$manager" --metrics-bind-address "127.0.0.1:$METRICS_PORT" \
    --health-probe-bind-address "127.0.0.1:$PROBE_PORT" "$@" >>"$log" 2>&1 &
  MANAGER_PID=$!
  local i
  for i in $(seq 100); do
    curl -fs "http://127.0.0.1:$PROBE_PORT/readyz" >/dev/null 2>&1 && return
    kill -0 "$MANAGER_PID" 2>/dev/null || die "the manager exited; its log:"$'\n'"$(tail -n 20 "$log")"
    sleep 0.1
  done
  die "the manager did not become ready in 10s; see $log"
}
stop_manager() {
  if [[ -n ${MANAGER_PID:-} ]] && kill -0 "$MANAGER_PID" 2>/dev/null; then
    kill -TERM "$MANAGER_PID"
    wait "$MANAGER_PID" 2>/dev/null || true
  fi
  MANAGER_PID=
}
# manager_errors prints how many errors the manager has logged so far.
manager_errors() { grep -c '	ERROR	' "$log" || true; }
trap stop_manager EXIT

: >"$log"
MANAGER_ARGS=()
source "$ROOT/scripts/lib/walkthrough.sh"
STAGE_DIR=$dir
start_manager "${MANAGER_ARGS[@]}"
source "$walkthrough"
stop_manager
summary
