#!/usr/bin/env bash
# Runs lesson or solution N's manager against a cluster and walks through what it
# should do (scripts/walkthroughs/NN.sh), printing a pass or fail line per expectation.
#
# The cluster: the current kube context when it is kind-* or the embedded cluster's (or
# $WORKSHOP_ALLOW_CONTEXT); otherwise the embedded cluster, started if needed.
#
# With `run` (make run-N), the manager runs in the foreground instead, its log on the
# terminal, for you to try it with kubectl; Ctrl-C stops it and removes its webhook
# configurations, which would otherwise make the API server refuse the stage's kinds.
#
# A walkthrough starts by removing what an earlier run of it left, and one that stops
# before its end (a command that fails, an error, Ctrl-C) still prints its summary and
# what stopped it.
#
# Usage: scripts/run-stage.sh lessons|solutions|FOLDER N [run]
#   FOLDER  a copy of stage N elsewhere, such as scripts/walkthrough-rerun.sh's broken one
source "$(dirname "$0")/lib/common.sh"
source "$ROOT/scripts/lib/stage.sh"

usage="usage: $0 lessons|solutions|FOLDER N [run|debug]"
kind=${1:?$usage}
n=$(printf '%02d' "$((10#${2:?$usage}))")
mode=${3:-walkthrough}
[[ $mode == walkthrough || $mode == run || $mode == debug ]] || die "$usage"
if [[ $kind == lessons || $kind == solutions ]]; then
  dir=$(stage_dir "$kind" "$n")
  name="$kind/$(basename "$dir")"
else
  [[ -f $kind/go.mod ]] || die "$usage ($kind is no stage's folder)"
  dir=$(cd "$kind" && pwd)
  name=${dir#"$ROOT"/}
fi
walkthrough="$ROOT/scripts/walkthroughs/$n.sh"
[[ $mode != walkthrough || -f $walkthrough ]] || die "no walkthrough for stage $n ($walkthrough)"

export PATH="$CACHE/bin/current:$PATH"
source "$ROOT/scripts/lib/cluster.sh"
source "$ROOT/scripts/lib/manager.sh"
source "$ROOT/scripts/lib/walkthrough.sh"
use_cluster

# A lesson's markers are the learner's: regenerate what they say. A solution's generated
# files are committed, and make verify keeps them current.
if [[ $kind == lessons ]]; then
  workshop generate-lesson "$dir"
fi
say "Installing the CRDs of $name"
manager_install_crds "$dir"

# The stage's manager binary, log, certificates and manifests. scripts/test.sh keeps its
# own, so that it leaves a learner's running `make lesson-N` alone. Walkthroughs read the
# capitalised ones (and MANAGER_HOST, below): the manager's log, and the folder of its
# webhooks' certificates.
STAGE_CACHE=${STAGE_CACHE:-$CACHE/stage}
mkdir -p "$STAGE_CACHE"
manager="$STAGE_CACHE/manager-$n"
MANAGER_LOG="$STAGE_CACHE/manager-$n.log"
WEBHOOK_CERT_DIR="$STAGE_CACHE/certs-$n"
say "Building the manager of $name"
manager_build "$dir" "$manager"

METRICS_PORT=${METRICS_PORT:-18080}
PROBE_PORT=${PROBE_PORT:-18081}
WEBHOOK_PORT=${WEBHOOK_PORT:-19443}
MANAGER_ARGS=(--metrics-bind-address "127.0.0.1:$METRICS_PORT")

# A stage with webhooks: the API server must call the manager on this machine, over TLS,
# at MANAGER_HOST. Whatever an earlier run left calling this machine's webhook port goes
# first.
if manager_has_webhooks "$dir"; then
  MANAGER_HOST=$(manager_webhook_host)
else
  MANAGER_HOST=$(manager_webhook_host 2>/dev/null) || MANAGER_HOST=
fi
[[ -z $MANAGER_HOST ]] || manager_remove_stale_webhooks "$MANAGER_HOST" "$WEBHOOK_PORT"
if manager_has_webhooks "$dir"; then
  say "Installing the webhooks of $name, pointed at the manager on https://$MANAGER_HOST:$WEBHOOK_PORT"
  manager_install_webhooks "$dir" "$MANAGER_HOST" "$WEBHOOK_PORT" "$WEBHOOK_CERT_DIR"
  # kubebuilder's cmd/main.go (the capstone's) names the folder --webhook-cert-path.
  cert_flag=--webhook-cert-dir
  ! grep -q '"webhook-cert-path"' "$dir/cmd/main.go" || cert_flag=--webhook-cert-path
  MANAGER_ARGS+=(--webhook-port "$WEBHOOK_PORT" "$cert_flag" "$WEBHOOK_CERT_DIR")
fi

# start_manager [FLAGS...] starts the stage's manager with MANAGER_ARGS and FLAGS, and
# waits until it is ready; stop_manager stops it. Walkthroughs restart it with them.
# shellcheck disable=SC2120 # the walkthroughs pass FLAGS (02: --filter-events=false)
start_manager() {
  say "Starting the manager of $name $* (log: ${MANAGER_LOG#"$ROOT"/})"
  manager_start "$manager" "$MANAGER_LOG" "$PROBE_PORT" "${MANAGER_ARGS[@]}" "$@"
}
stop_manager() {
  manager_stop "$MANAGER_PID"
  MANAGER_PID=
}
# cleanup stops the manager and removes its webhook configurations: with no manager to
# answer them, they would make the API server refuse every change to the stage's kinds.
# (Walkthrough 09 redefines it: it has more to undo.)
cleanup() {
  stop_manager
  if manager_has_webhooks "$dir"; then
    manager_remove_webhooks "$dir" || warn "could not remove the webhook configurations of $name"
  fi
}
# manager_errors prints how many errors the manager has logged so far; MANAGER_ERRORS is
# the same as a command a learner can paste in the repository's folder.
manager_errors() { grep -c '	ERROR	' "$MANAGER_LOG" || true; }
MANAGER_ERRORS="grep -c \$'\\tERROR\\t' ${MANAGER_LOG#"$ROOT"/}"
# explain_failure names the known problems the walkthrough's and the manager's logs show,
# and for a lesson, where to find the first task not done.
explain_failure() {
  workshop symptoms "$WALKTHROUGH_LOG" "$MANAGER_LOG"
  [[ $kind != lessons ]] || say "make check-$((10#$n)) lists which of your tasks are done, and shows the first one that is not"
}
# on_exit: a walkthrough that stopped before its end says why and prints its summary
# (walkthrough_stopped); then everything the run started goes.
on_exit() {
  local status=$?
  if [[ -n $WALKTHROUGH_FILE ]]; then
    walkthrough_stopped "$status"
    explain_failure
  fi
  cleanup
}
trap on_exit EXIT

# debug: the manager, built for a debugger, runs in the foreground under Delve, which
# waits for an editor (or dlv connect) on 127.0.0.1:DLV_PORT.
if [[ $mode == debug ]]; then
  DLV_PORT=${DLV_PORT:-2345}
  manager_build_debug "$dir" "$manager-debug"
  say "Running the manager of $name under Delve on 127.0.0.1:$DLV_PORT; attach VS Code or GoLand" \
    "(docs/lesson-17.md), or: dlv connect 127.0.0.1:$DLV_PORT. Ctrl-C stops both"
  delve_args=()
  while IFS= read -r arg; do delve_args+=("$arg"); done < <(manager_delve_args "$DLV_PORT" "$manager-debug")
  status=0
  trap ':' INT
  "${DLV:-dlv}" ${delve_args[@]+"${delve_args[@]}"} --health-probe-bind-address "127.0.0.1:$PROBE_PORT" "${MANAGER_ARGS[@]}" 2>&1 |
    (trap '' INT && exec tee "$MANAGER_LOG") || status=$?
  trap - INT
  say "Delve and the manager stopped (exit status $status)"
  exit "$status"
fi

if [[ $mode == run ]]; then
  say "Running the manager of $name in the foreground; Ctrl-C stops it"
  say "Try it from another terminal at the top of the workshop: eval \"\$(make env)\", then" \
    "kubectl apply -f ${dir#"$ROOT"/}/config/samples/<one of: $(cd "$dir/config/samples" && echo *)>"
  status=0
  manager_run "$manager" "$MANAGER_LOG" "$PROBE_PORT" "${MANAGER_ARGS[@]}" || status=$?
  say "The manager stopped (exit status $status)"
  exit "$status"
fi

: >"$MANAGER_LOG"
STAGE_DIR=$dir
# The walkthrough shows its commands from the top of the checkout, where make runs.
cd "$ROOT"
walkthrough_begin "$walkthrough" "$STAGE_CACHE/walkthrough-$n.log"
# shellcheck disable=SC2119 # the manager as the stage runs it: no FLAGS
start_manager
# shellcheck disable=SC1090 # the walkthrough of stage N, which shellcheck checks on its own
source "$walkthrough"
stop_manager
if ! walkthrough_end; then
  explain_failure
  exit 1
fi
