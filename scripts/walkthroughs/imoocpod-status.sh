# shellcheck shell=bash
# What the walkthroughs of an ImoocPod with status share (02, and 12 on bare client-go):
# the kubectl commands that read the ImoocPod demo in namespace $NS, and the functions
# that count the controller's passes from the counter $METRIC on its metrics endpoint.
# Sourced by a walkthrough after it sets NS and METRIC.
# shellcheck disable=SC2034 # for walkthroughs 02 and 12, which source this file
ACTIVE="kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo --no-headers 2>/dev/null | grep -cv Terminating"
# DESIRED CURRENT READY, as `kubectl get imoocpod` prints them.
COLUMNS="kubectl get imoocpod demo -n $NS --no-headers | awk '{print \$2, \$3, \$4}'"
# shellcheck disable=SC2034 # as ACTIVE
GENERATIONS="kubectl get imoocpod demo -n $NS -o jsonpath='{.metadata.generation} {.status.observedGeneration}'"
# shellcheck disable=SC2034 # as ACTIVE
READY_CONDITION="kubectl get imoocpod demo -n $NS -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status} {.status.conditions[?(@.type==\"Ready\")].reason}'"

# reconciles prints how many passes of the imoocpod controller have succeeded since the
# manager started, from its metrics endpoint.
reconciles() {
  curl -s "http://127.0.0.1:$METRICS_PORT/metrics" | grep -F "$METRIC" | awk '{print $2}'
}

# settled_reconciles waits until the count has not moved for a second (the last events
# of a change arrive after the columns look right), then prints it.
settled_reconciles() {
  local last now
  last=$(reconciles)
  for _ in $(seq 20); do
    sleep 1
    now=$(reconciles)
    [[ $now == "$last" ]] && break
    last=$now
  done
  echo "${last:-0}"
}

# measure_scale_to N scales demo to N, waits for N N N and sets SCALE_PASSES to the
# reconciles that cost.
measure_scale_to() {
  local before after
  before=$(settled_reconciles)
  run kubectl scale imoocpod demo -n "$NS" --replicas="$1"
  expect "DESIRED CURRENT READY reach $1 $1 $1" "$1 $1 $1" "$COLUMNS"
  after=$(settled_reconciles)
  # shellcheck disable=SC2034 # as ACTIVE
  SCALE_PASSES=$((after - before))
}

# touch_pods VALUE annotates every pod of demo and sets TOUCH_PASSES to the reconciles
# that caused.
touch_pods() {
  local before after
  before=$(settled_reconciles)
  run kubectl annotate pods -n "$NS" -l apps.workshop.dev/imoocpod=demo --overwrite "workshop.dev/touched=$1"
  after=$(settled_reconciles)
  # shellcheck disable=SC2034 # as ACTIVE
  TOUCH_PASSES=$((after - before))
}
