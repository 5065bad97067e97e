#!/usr/bin/env bash
# Fault tests: what the solutions' controllers do when their own process, or the control
# plane under them, goes away in the middle of work. Each scenario runs on a fresh
# embedded cluster of its own (kwok-workshop-faults), prints its figures and fails when
# the controller broke a promise.
#
#   imoocpod      scale an ImoocPod from 0 to 300; SIGKILL its manager after 100 pods and
#                 start it again. At no moment (every watch event counts, scripts/tools/
#                 podwatch) are more than 300 pods alive, and the 300 become ready.
#   mydaemonset   a MyDaemonSet on 200 nodes; SIGKILL its manager after 80 pods, start it
#                 again. Never two alive pods on a node; every node gets its pod.
#   nodepool      a NodePool of 200 nodes changes a label; kube-apiserver stops for 3 s
#                 just after, then (the next change) etcd does. The manager keeps running
#                 and every member ends with the new label, and with the label and taint
#                 of its own that it had before.
#
# Usage: scripts/faults.sh imoocpod|mydaemonset|nodepool|all   (make faults runs all)
#   FAULTS_CLUSTER=workshop-faults   the name of its cluster, kwok-$FAULTS_CLUSTER
#   FAULTS_PROBE_PORT=28101 FAULTS_WEBHOOK_PORT=28102   the manager's ports on this machine
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

usage="usage: $0 imoocpod|mydaemonset|nodepool|all"
scenario=${1:?$usage}
export WORKSHOP_CLUSTER=${FAULTS_CLUSTER:-workshop-faults} PATH="$CACHE/bin/current:$PATH"
PROBE_PORT=${FAULTS_PROBE_PORT:-28101}
WEBHOOK_PORT=${FAULTS_WEBHOOK_PORT:-28102}
source "$ROOT/scripts/lib/manager.sh"
work="$CACHE/faults"
NS=faults
mkdir -p "$work"
rm -f "$work/podwatch" # built again from this checkout's source
CLOCK=$(tool_path clock) # now_ms, built before anything is timed

# fresh_cluster NODES starts a new cluster of its own with NODES nodes.
fresh_cluster() {
  "$ROOT/scripts/cluster.sh" down >/dev/null 2>&1
  "$ROOT/scripts/cluster.sh" up "$1" 2>&1 | grep -v '^  \|^The cluster is ready' >&2
  KUBECONFIG=$("$ROOT/scripts/cluster.sh" kubeconfig)
  export KUBECONFIG
  kubectl create namespace "$NS" >/dev/null
}

# Manager: built once per stage (scripts/lib/manager.sh) and installed as make lesson-N
# does, webhooks included; started (again) with start_manager, killed with kill_manager.
prepare_manager() {
  STAGE=$1
  say "Building the manager of ${STAGE#"$ROOT"/} and installing its CRDs"
  manager_build "$STAGE" "$work/manager"
  manager_install_crds "$STAGE"
  MANAGER_ARGS=(--metrics-bind-address 0)
  if manager_has_webhooks "$STAGE"; then
    manager_install_webhooks "$STAGE" 127.0.0.1 "$WEBHOOK_PORT" "$work/certs"
    MANAGER_ARGS+=(--webhook-port "$WEBHOOK_PORT" --webhook-cert-dir "$work/certs")
  fi
  : >"$work/manager.log"
}
# start_manager starts it outside this shell's jobs, for the pod watch to SIGKILL it.
start_manager() { manager_start --detach --wait 15 "$work/manager" "$work/manager.log" "$PROBE_PORT" "${MANAGER_ARGS[@]}"; }
kill_manager() { manager_stop "$MANAGER_PID" KILL; }
# killed_by_podwatch waits until the pod watch has killed the manager.
killed_by_podwatch() {
  wait_for "the manager killed" 120 "! kill -0 $MANAGER_PID" || die "the manager was not killed within 120 s"
}

# Pod watch: started before the scenario acts, stopped at its end for the figures. With
# KILL_AT it kills the manager the moment that many pods are alive.
WATCH_PID=
start_podwatch() {
  local kill=()
  [[ -z ${KILL_AT:-} ]] || kill=(-kill-pid "$MANAGER_PID" -kill-at "$KILL_AT")
  rm -f "$work/podwatch.ready"
  [[ -x $work/podwatch ]] || (cd "$ROOT/scripts/tools" && GOWORK=off go build -o "$work/podwatch" ./podwatch)
  "$work/podwatch" -namespace "$NS" -ready-file "$work/podwatch.ready" ${kill[@]+"${kill[@]}"} >"$work/podwatch.json" &
  WATCH_PID=$!
  for _ in $(seq 300); do [[ -f $work/podwatch.ready ]] && return; sleep 0.1; done
  die "the pod watch did not start"
}
stop_podwatch() {
  kill -TERM "$WATCH_PID" 2>/dev/null || true
  wait "$WATCH_PID" 2>/dev/null || true
  WATCH_PID=
}
# figure NAME prints one number from the pod watch's result.
figure() { grep -o "\"$1\":[0-9]*" "$work/podwatch.json" | cut -d: -f2; }

# wait_for WHAT SECONDS COMMAND waits until COMMAND (a shell string) succeeds. WHAT names
# what it waits for, for the reader of the call; the caller says it when the wait fails.
wait_for() {
  local seconds=$2 cmd=$3 deadline
  deadline=$(($(date +%s) + seconds))
  until eval "$cmd" >/dev/null 2>&1; do
    (($(date +%s) < deadline)) || return 1
    sleep 0.2
  done
}
alive_pods() { kubectl get pods -n "$NS" --no-headers 2>/dev/null | grep -vc Terminating || true; }

failures=0
verdict() { # verdict CONDITION MESSAGE
  if eval "$1"; then printf '  \033[32mPASS\033[0m %s\n' "$2"; else printf '  \033[31mFAIL\033[0m %s\n' "$2"; failures=$((failures + 1)); fi
}

cleanup() {
  manager_stop "$MANAGER_PID" KILL
  [[ -z $WATCH_PID ]] || stop_podwatch
  "$ROOT/scripts/cluster.sh" down >/dev/null 2>&1 || true
}
trap cleanup EXIT

imoocpod() {
  local want=300 start restarted
  say "ImoocPod: SIGKILL the manager while it scales 0 to $want, then start it again"
  fresh_cluster 4
  prepare_manager "$(newest_solution imoocpod)"
  start_manager
  KILL_AT=100 start_podwatch
  start=$(now_ms)
  kubectl apply -n "$NS" -f - >/dev/null <<YAML
apiVersion: apps.workshop.dev/v1
kind: ImoocPod
metadata: {name: demo}
spec: {replicas: $want, image: registry.k8s.io/pause:3.10}
YAML
  killed_by_podwatch
  sleep 2
  restarted=$(now_ms)
  start_manager
  wait_for "$want ready" 240 "[[ \$(kubectl get imoocpod demo -n $NS -o jsonpath='{.status.readyReplicas}') == $want ]]" ||
    warn "not $want ready pods after 240 s"
  local done_at; done_at=$(now_ms)
  sleep 3 # anything the controller still had in flight shows up now
  stop_podwatch
  printf '  killed with %s pods alive; %d ready %.1f s after the restart (%.1f s in all)\n' \
    "$(figure aliveAtKill)" "$want" "$((done_at - restarted))e-3" "$((done_at - start))e-3"
  printf '  most pods alive at once: %s (from %s watch events)\n' "$(figure maxAlive)" "$(figure events)"
  verdict "(($(figure maxAlive) <= want))" "never more than $want pods alive"
  verdict "(($(alive_pods) == want))" "$want pods alive at the end"
  kill_manager
}

mydaemonset() {
  local nodes=200 start restarted done_at
  say "MyDaemonSet: SIGKILL the manager while it places pods on $nodes nodes, then start it again"
  fresh_cluster "$nodes"
  prepare_manager "$(newest_solution mydaemonset)"
  start_manager
  KILL_AT=80 start_podwatch
  start=$(now_ms)
  kubectl apply -n "$NS" -f "$STAGE/config/samples/apps_v1_mydaemonset.yaml" >/dev/null
  killed_by_podwatch
  sleep 2
  restarted=$(now_ms)
  start_manager
  wait_for "a pod on every node" 240 "[[ \$(kubectl get mydaemonset demo -n $NS -o jsonpath='{.status.numberAvailable}') == $nodes ]]" ||
    warn "not $nodes available pods after 240 s"
  done_at=$(now_ms)
  sleep 3
  stop_podwatch
  printf '  killed with %s pods alive; all %d nodes served %.1f s after the restart (%.1f s in all)\n' \
    "$(figure aliveAtKill)" "$nodes" "$((done_at - restarted))e-3" "$((done_at - start))e-3"
  printf '  most pods alive at once: %s, on one node: %s (from %s watch events)\n' \
    "$(figure maxAlive)" "$(figure maxAliveOnANode)" "$(figure events)"
  verdict "(($(figure maxAliveOnANode) <= 1))" "never two alive pods on one node"
  verdict "(($(alive_pods) == nodes))" "one pod on each of the $nodes nodes at the end"
  kill_manager
}

nodepool() {
  local nodes=200 pool=faults round pid component
  local member=node-role.kubernetes.io/$pool
  say "NodePool: the control plane restarts while a pool of $nodes nodes changes a label"
  fresh_cluster "$nodes"
  prepare_manager "$(newest_solution nodepool)"
  say "Giving every node a label and a taint of its own, and making it a member"
  kubectl label nodes --all "$member=" faults.workshop.dev/own=keep >/dev/null
  kubectl taint nodes --all faults.workshop.dev/own=keep:PreferNoSchedule >/dev/null
  start_manager
  pid=$MANAGER_PID
  kubectl apply -f - >/dev/null <<YAML
apiVersion: nodes.workshop.dev/v1
kind: NodePool
metadata: {name: $pool}
spec:
  handler: runc
  labels: {node-pool.workshop.dev/round: "1"}
  taints: [{key: node-pool.workshop.dev, value: faults, effect: NoSchedule}]
YAML
  wait_for "round 1" 120 "(( \$(kubectl get nodes -l node-pool.workshop.dev/round=1 --no-headers | wc -l) == $nodes ))" ||
    die "the pool never reached its $nodes members"
  round=1
  for component in kube-apiserver etcd; do
    round=$((round + 1))
    local start done_at
    start=$(now_ms)
    kubectl patch nodepool "$pool" --type merge -p "{\"spec\":{\"labels\":{\"node-pool.workshop.dev/round\":\"$round\"}}}" >/dev/null
    "$ROOT/scripts/cluster.sh" restart "$component" 3
    if wait_for "round $round" 180 "(( \$(kubectl get nodes -l node-pool.workshop.dev/round=$round --no-headers | wc -l) == $nodes ))"; then
      done_at=$(now_ms)
      printf '  %s down 3 s: every member had the new label %.1f s after the change\n' "$component" "$((done_at - start))e-3"
    fi
    verdict "(( \$(kubectl get nodes -l node-pool.workshop.dev/round=$round --no-headers | wc -l) == $nodes ))" \
      "after the $component restart, all $nodes members carry the new label"
    verdict "kill -0 $pid 2>/dev/null" "the manager survived the $component restart (same process)"
  done
  verdict "(( \$(kubectl get nodes -l faults.workshop.dev/own=keep --no-headers | wc -l) == $nodes ))" \
    "every node kept its own label"
  verdict "(( \$(kubectl get nodes -o jsonpath='{range .items[*]}{.spec.taints[*].key}{\"\\n\"}{end}' | grep -c faults.workshop.dev/own) == $nodes ))" \
    "every node kept its own taint"
  kill_manager
}

case $scenario in
  imoocpod | mydaemonset | nodepool) "$scenario" ;;
  all) imoocpod; mydaemonset; nodepool ;;
  *) die "$usage" ;;
esac
((failures == 0)) || die "$failures fault check(s) failed; the manager's log is ${work#"$ROOT"/}/manager.log"
say "Every fault check passed"
