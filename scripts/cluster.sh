#!/usr/bin/env bash
# The embedded cluster: a real etcd, kube-apiserver, kube-controller-manager and
# kube-scheduler, built from source, with kwok simulating the nodes and the kubelets.
# Pods are scheduled and reach Running; the garbage collector and every built-in
# controller run for real; no container runs and no Docker is needed.
#
# State lives in .cache/kwok; the kubeconfig in .cache/kwok/$CLUSTER.kubeconfig (context
# kwok-$CLUSTER).
#
# Usage:
#   scripts/cluster.sh up [NODES]     start the cluster (if needed) with NODES nodes (3)
#   scripts/cluster.sh down           delete the cluster and its state
#   scripts/cluster.sh recreate [N]   delete it and start a new one at its address
#   scripts/cluster.sh nodes N        scale the simulated nodes to N
#   scripts/cluster.sh kubeconfig     print the kubeconfig's path
#   scripts/cluster.sh running        exit 0 when the cluster answers
#   scripts/cluster.sh restart COMPONENT [SECONDS]
#                                     stop one component (etcd, kube-apiserver, ...) and
#                                     start it again after SECONDS (2): what a control
#                                     plane upgrade or crash looks like to a controller
source "$(dirname "$0")/lib/common.sh"

CLUSTER=${WORKSHOP_CLUSTER:-workshop}
export KWOK_WORKDIR="$CACHE/kwok"
KUBECONFIG_PATH="$KWOK_WORKDIR/$CLUSTER.kubeconfig"
BINDIR="$CACHE/bin/current"

# kwokctl gives a new cluster the first free ports counting down from 32767: two clusters
# starting at once would take the same ones, and a cluster started again gets its old
# address only if no other took it in between. Starting, restarting and recreating a
# cluster therefore hold a lock for every checkout's clusters on this machine: a folder in
# the temp folder holding the pid of the process that made it; that of a process gone is
# taken over.
LOCK="${TMPDIR:-/tmp}/operator-workshop-cluster-start.lock"
LOCKED=
lock() {
  [[ -z $LOCKED ]] || return 0
  local waited=0 holder
  until mkdir "$LOCK" 2>/dev/null; do
    holder=$(cat "$LOCK/pid" 2>/dev/null || true)
    if [[ -n $holder ]] && ! kill -0 "$holder" 2>/dev/null; then
      rm -rf "$LOCK"
      continue
    fi
    if ((waited % 30 == 0)); then
      say "Waiting for another embedded cluster on this machine to finish starting (${waited}s so far)"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  echo $$ >"$LOCK/pid"
  LOCKED=1
  trap 'rm -rf "$LOCK"' EXIT
}

kwokctl() { "$BINDIR/kwokctl" --name "$CLUSTER" -v WARN "$@"; }
kubectl() { "$BINDIR/kubectl" --kubeconfig "$KUBECONFIG_PATH" --context "kwok-$CLUSTER" "$@"; }

running() {
  [[ -f "$KUBECONFIG_PATH" ]] && kubectl get --raw /readyz >/dev/null 2>&1
}

scale() {
  local n=$1
  say "Scaling the simulated nodes of kwok-$CLUSTER to $n"
  kwokctl scale node --replicas "$n" >/dev/null
  # The nodes are Ready as soon as kwok sees them; wait for that, not for a guess.
  # kwok makes about 15 nodes a second on two cores: allow for that.
  kubectl wait --for=condition=Ready node --all --timeout=$((60 + n / 5))s >/dev/null
}

up() {
  local nodes=${1:-3}
  [[ -x "$BINDIR/kwokctl" ]] || die "no binaries yet: run \`make binaries\` first"
  if running; then
    say "The cluster kwok-$CLUSTER is already running"
  else
    lock
    say "Starting the embedded cluster kwok-$CLUSTER (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok)"
    local start
    start=$(date +%s)
    # A cluster whose processes died (a reboot) leaves state behind; start afresh.
    kwokctl delete cluster >/dev/null 2>&1 || true
    kwokctl create cluster \
      --runtime binary \
      --kubeconfig "$KUBECONFIG_PATH" \
      --etcd-binary "$BINDIR/etcd" \
      --kube-apiserver-binary "$BINDIR/kube-apiserver" \
      --kube-controller-manager-binary "$BINDIR/kube-controller-manager" \
      --kube-scheduler-binary "$BINDIR/kube-scheduler" \
      --kwok-controller-binary "$BINDIR/kwok" \
      --wait 60s >&2
    say "Started kwok-$CLUSTER in $(seconds_since "$start")s"
    # kwokctl gives the cluster the address the last one had: what kubectl cached of that
    # one must go.
    refresh_discovery
  fi
  local have
  have=$(kubectl get nodes --no-headers 2>/dev/null | wc -l)
  if ((have != nodes)); then
    scale "$nodes"
  fi
  cat >&2 <<MSG
The cluster is ready. To use it from your shell:
  eval \$(make -s env)
  kubectl get nodes
MSG
}

down() {
  if [[ -d "$KWOK_WORKDIR/clusters/$CLUSTER" ]]; then
    say "Deleting the embedded cluster kwok-$CLUSTER"
    kwokctl delete cluster --kubeconfig "$KUBECONFIG_PATH" >&2
  else
    say "No cluster kwok-$CLUSTER to delete"
  fi
}

# restart COMPONENT SECONDS stops one component with SIGTERM, as a rolling upgrade
# would, and SECONDS later lets kwokctl start it again: `kwokctl start cluster` starts the
# components whose pid file names no running process, with the flags it gave them.
restart() {
  local component=$1 down_for=${2:-2} dir="$KWOK_WORKDIR/clusters/$CLUSTER"
  local pidfile="$dir/pids/$component.pid" pid
  # shellcheck disable=SC2012 # ls lists kwokctl's pid files, named after its components
  [[ -f $pidfile ]] || die "kwok-$CLUSTER has no component '$component' (known: $(cd "$dir/pids" 2>/dev/null && ls | sed 's/\.pid$//' | paste -sd' '))"
  pid=$(<"$pidfile")
  kill -0 "$pid" 2>/dev/null || die "$component (pid $pid) is not running"
  lock
  say "Stopping $component of kwok-$CLUSTER for ${down_for}s"
  kill -TERM "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  sleep "$down_for"
  kwokctl start cluster >&2
  say "Started $component again (pid $(<"$pidfile"))"
}

case ${1:-} in
  up) up "${2:-3}" ;;
  down) down ;;
  recreate) lock; down; up "${2:-3}" ;;
  nodes) [[ -n ${2:-} ]] || die "usage: $0 nodes N"; running || die "the cluster is not running: make cluster-up"; scale "$2" ;;
  kubeconfig) echo "$KUBECONFIG_PATH" ;;
  running) running ;;
  restart) [[ -n ${2:-} ]] || die "usage: $0 restart COMPONENT [SECONDS]"; restart "$2" "${3:-2}" ;;
  *) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
