# shellcheck shell=bash
# The vocabulary of a walkthrough (scripts/walkthroughs/NN.sh): steps a learner could
# type themselves, each followed by what they should see. Every check prints the kubectl
# command that shows it, a pass or fail line, and on failure a hint.
#
#   remove_leftovers namespace/NS nodepool/NAME ...   first: what an earlier run left
#   step "What happens next"
#   run kubectl apply -f ...                          show and run a command
#   expect "what should be true" WANT 'COMMAND' "hint when it is not"
#   expect_refused "what should be refused" 'COMMAND' "text of the error" "hint"
#
# expect polls COMMAND (a shell string) until its output is WANT, for up to WAIT seconds
# (30) while everything has passed. Once an expectation has failed, the walkthrough is
# broken and what follows mostly depends on what failed (the pool that was never
# reconciled, the webhook that was never registered): each later expectation waits
# FAIL_WAIT seconds at most (3), enough for a part that works to show it, and 1 s once
# FAIL_BUDGET seconds (10) have passed since the first failure, so that a run with
# failures ends soon after its first one, however many steps follow.
#
# The walkthrough ends with "N passed, M failed". A walkthrough that stops before its end
# (a command that fails, an error, Ctrl-C) prints that line too, and what stopped it.
# Commands show paths relative to the top of the checkout, where make runs them, so that
# they can be pasted from there. What the commands printed and every failure are
# appended to WALKTHROUGH_LOG, for `workshop symptoms` (scripts/lib/symptoms.tsv) to recognise known problems in.

PASSED=0
FAILED=0
WAIT=${WAIT:-30}
FAIL_WAIT=${FAIL_WAIT:-3}
FAIL_BUDGET=${FAIL_BUDGET:-10}
FAILED_AT=          # when the first expectation failed (date +%s)
STEP=               # the current step's title
WALKTHROUGH_FILE=   # the walkthrough under way, between walkthrough_begin and walkthrough_end
WALKTHROUGH_LOG=
STOPPED_AT=         # the walkthrough's line that failed, FILE:LINE (the ERR trap)
STOPPED_BY=         # its exit status
STOPPED_RUN=        # set when it was run's: what the command printed is in RUN_OUTPUT
RUN_FAILED=         # set when the last command that run ran failed
STOP_SIGNAL=        # Ctrl-C (SIGINT) or SIGTERM, when one stopped the walkthrough
RUN_OUTPUT=         # what the last command shown by run printed

# walkthrough_begin FILE LOG starts the walkthrough FILE (sourced next), appending what
# its commands print to LOG. From now on the first command that fails is remembered (the
# ERR trap, inherited by functions with set -E), and so are Ctrl-C and SIGTERM, for
# walkthrough_stopped to say what stopped the walkthrough.
walkthrough_begin() {
  WALKTHROUGH_FILE=$1
  WALKTHROUGH_LOG=$2
  RUN_OUTPUT="$2.last"
  : >"$WALKTHROUGH_LOG"
  set -E
  trap walkthrough_error ERR
  trap 'STOP_SIGNAL="Ctrl-C (SIGINT)"; exit 130' INT
  trap 'STOP_SIGNAL=SIGTERM; exit 143' TERM
}

# walkthrough_end ends a walkthrough that reached its last line, prints its summary and
# fails when an expectation failed.
walkthrough_end() {
  trap - ERR INT TERM
  set +E
  WALKTHROUGH_FILE=
  summary
}

# walkthrough_error is the ERR trap: it remembers the first command that failed, by its
# line in the walkthrough when it was called from there. It runs in subshells too, where
# a failure stops nothing and what it sets is lost.
walkthrough_error() {
  local status=$?
  [[ -z $STOPPED_AT && -n $WALKTHROUGH_FILE ]] || return 0
  STOPPED_AT=$(stop_place)
  STOPPED_BY="exit status $status"
  # run returns its command's status: then what the command printed is in RUN_OUTPUT.
  [[ $RUN_FAILED != 1 || $BASH_COMMAND != 'return "$status"' ]] || STOPPED_RUN=1
  return 0
}

# stop_place prints FILE:LINE of the innermost call made from a walkthrough
# (scripts/walkthroughs/*.sh), or else of the innermost call made outside this file.
stop_place() {
  local i here=${BASH_SOURCE[0]} fallback=
  for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
    [[ ${BASH_SOURCE[i]} != "$here" ]] || continue
    [[ -n $fallback ]] || fallback="${BASH_SOURCE[i]#"$ROOT"/}:${BASH_LINENO[i - 1]}"
    if [[ ${BASH_SOURCE[i]} == "$ROOT"/scripts/walkthroughs/* ]]; then
      echo "${BASH_SOURCE[i]#"$ROOT"/}:${BASH_LINENO[i - 1]}"
      return 0 # in a trap, a bare return would return the status the trap began with
    fi
  done
  echo "$fallback"
}

# source_lines FILE:LINE prints the line of the checkout's FILE, with the lines it
# continues on (a trailing backslash), indented.
source_lines() {
  awk -v n="${1##*:}" 'NR >= n { print "    " $0; if ($0 !~ /\\$/) exit }' "$ROOT/${1%:*}"
}

# walkthrough_stopped STATUS, for the exit trap: when a walkthrough was under way, says
# what stopped it (the signal; or the command that failed, and the last lines it
# printed; or the error printed above) and prints the summary. Nothing otherwise.
walkthrough_stopped() {
  local status=$1 where when
  [[ -n $WALKTHROUGH_FILE ]] || return 0
  trap - ERR INT TERM
  set +E
  WALKTHROUGH_FILE=
  where=${STOPPED_AT:-$(stop_place)}
  when="before its first step"
  [[ -z $STEP ]] || when="in the step \"$STEP\""
  printf '\n\033[31mThe walkthrough stopped\033[0m %s, at %s:\n' "$when" "$where"
  if [[ -n $STOP_SIGNAL ]]; then
    printf '  stopped by %s\n' "$STOP_SIGNAL"
  elif [[ -n $STOPPED_AT ]]; then
    source_lines "$STOPPED_AT"
    if [[ -n $STOPPED_RUN && -s $RUN_OUTPUT ]]; then
      printf '  failed (%s); the last lines it printed:\n' "$STOPPED_BY"
      tail -n 5 "$RUN_OUTPUT" | sed 's/^/    /'
    else
      printf '  failed (%s); what it printed is above\n' "$STOPPED_BY"
    fi
  else
    printf '  by the error above (exit status %s)\n' "$status"
  fi
  printf 'STOPPED at %s: %s\n' "$where" "${STOP_SIGNAL:-${STOPPED_BY:-exit status $status}}" >>"$WALKTHROUGH_LOG"
  summary || true
}

step() {
  STEP=$*
  printf '\n\033[1m%s\033[0m\n' "$*"
}

# show prints a command as the learner would type it at the top of the checkout.
show() { printf '  $ %s\n' "${1//"$ROOT/"/}"; }

# run shows a command, runs it and prints its output, indented. A command that fails
# stops the walkthrough: what comes next needs what it should have done.
run() {
  local word shown=() status=0
  for word in "$@"; do
    # Quote only the words that need it, so the line can be pasted into a shell.
    if [[ $word =~ ^[][A-Za-z0-9_./:=,@%+-]+$ ]]; then shown+=("$word"); else shown+=("'$word'"); fi
  done
  show "${shown[*]+${shown[*]}}"
  RUN_FAILED=
  "$@" 2>&1 | tee "${RUN_OUTPUT:-/dev/null}" | sed 's/^/    /' || status=$?
  [[ -z $RUN_OUTPUT || -z $WALKTHROUGH_LOG ]] || cat "$RUN_OUTPUT" >>"$WALKTHROUGH_LOG"
  ((status == 0)) || RUN_FAILED=1
  return "$status"
}

pass() { PASSED=$((PASSED + 1)); printf '  \033[32mPASS\033[0m %s\n' "$1"; }

fail() {
  FAILED=$((FAILED + 1))
  [[ -n $FAILED_AT ]] || FAILED_AT=$(date +%s)
  printf '  \033[31mFAIL\033[0m %s\n' "$1"
  [[ -z $WALKTHROUGH_LOG ]] || printf 'FAIL %s: %s\n' "$1" "${2:-}" >>"$WALKTHROUGH_LOG"
  [[ -n ${2:-} ]] && printf '       %s\n' "$2"
  [[ -n ${3:-} ]] && printf '       hint: %s\n' "$3"
  return 0
}

# wait_seconds prints how long the next expectation may wait for what it expects: WAIT
# while nothing has failed; after a failure FAIL_WAIT, and 1 once FAIL_BUDGET seconds
# have passed since the first one.
wait_seconds() {
  if [[ -z $FAILED_AT ]]; then
    echo "$WAIT"
  elif (($(date +%s) - FAILED_AT < FAIL_BUDGET)); then
    echo $((FAIL_WAIT < WAIT ? FAIL_WAIT : WAIT))
  else
    echo 1
  fi
}

# waited_note SECONDS prints how long an expectation waited, and why no longer when an
# earlier failure cut its wait short.
waited_note() {
  if ((${1} < WAIT)) && [[ -n $FAILED_AT ]]; then
    echo "waited ${1}s: an earlier expectation failed"
  else
    echo "waited ${1}s"
  fi
}

expect() {
  local what=$1 want=$2 cmd=$3 hint=${4:-} got seconds deadline
  seconds=$(wait_seconds)
  deadline=$(($(date +%s) + seconds))
  show "$cmd"
  while :; do
    got=$(eval "$cmd" 2>&1 || true)
    if [[ $got == "$want" ]]; then
      pass "$what"
      return
    fi
    (($(date +%s) < deadline)) || break
    sleep 0.5
  done
  fail "$what" "got '$got', want '$want' ($(waited_note "$seconds"))" "$hint"
}

expect_refused() {
  local what=$1 cmd=$2 message=$3 hint=${4:-} out
  show "$cmd"
  if out=$(eval "$cmd" 2>&1); then
    fail "$what" "the command succeeded: $out" "$hint"
  elif [[ $out == *"$message"* ]]; then
    printf '    %s\n' "$out"
    pass "$what"
  else
    fail "$what" "refused, but with '$out'; want it to mention '$message'" "$hint"
  fi
}

# expect_warned WHAT CMD WARNING ADMITTED [HINT] runs CMD, which the API server should
# admit (its output says ADMITTED, such as "pod/clash created") with a webhook's warning
# (kubectl prints it as "Warning: WARNING").
expect_warned() {
  local what=$1 cmd=$2 warning=$3 admitted=$4 hint=${5:-} out
  show "$cmd"
  out=$(eval "$cmd" 2>&1) || true
  printf '%s\n' "$out" | sed 's/^/    /'
  if [[ $out == *"Warning: $warning"* && $out == *"$admitted"* ]]; then
    pass "$what"
  else
    fail "$what" "got: $out" "$hint"
  fi
}

# expect_collected KIND RESOURCE deletes the object demo of RESOURCE (imoocpod, mds) in
# the namespace NS, and expects the garbage collector to delete its pods (the command
# ACTIVE counts them), by their controller OwnerReferences.
expect_collected() {
  local kind=$1 resource=$2
  step "Delete the $kind: the garbage collector deletes its pods"
  run kubectl delete "$resource" demo -n "$NS" --wait=false
  # The garbage collector rediscovers API resources every 30 seconds: right after a CRD
  # is installed it can take that long to start following OwnerReferences to the new kind.
  WAIT=90 expect "no pods left (the kube-controller-manager's garbage collector followed the OwnerReferences)" 0 "$ACTIVE" \
    "pods without a controller OwnerReference to the $kind are never collected"
}

# expect_clean_log NAMESPACE... expects the manager to have logged no error (the command
# MANAGER_ERRORS counts them), then deletes the walkthrough's namespaces: the namespace
# controller removes them and their pods in the background (about 10 s), and the next
# run of the walkthrough waits for that before it starts.
expect_clean_log() {
  step "The manager's log"
  expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
  kubectl delete namespace "$@" --wait=false >/dev/null
}

# remove_leftovers THING... removes what an earlier run of this walkthrough may have left
# on the cluster (a run that stopped half-way, or that ran a broken controller: a
# RuntimeClass without its owner makes every later pass of a correct one fail), and says
# in one line what it found. A walkthrough calls it first, with everything it makes:
#
#   namespace/NAME      deleted and waited for; the finalizers that hold its pods go first
#   nodepool/NAME       deleted; a finalizer that no manager has removed in 10 s goes
#   pool-records/POOL   the records of POOL and of every pool that no longer exists, on
#                       every node: the labels and taints each lists, and the record. No
#                       pool will take them back, and another pool's walkthrough would find
#                       them on its nodes. (After nodepool/POOL, which deletes POOL.)
#   node-label/KEY      the label KEY, on every node
#   node-taint/KEY      every taint of key KEY, on every node
#   node-cordon/NODE    NODE made schedulable again
#   KIND/NAME, KIND/NAMESPACE/NAME   any other object (runtimeclass/..., sidecarset/...,
#                       pod/kube-system/..., clusterrolebinding/...): deleted, waited for
remove_leftovers() {
  local thing found=() left
  for thing in "$@"; do
    left=$(leftover "$thing")
    [[ -z $left ]] || found+=("$left")
  done
  if ((${#found[@]} == 0)); then
    printf '\nNothing left by an earlier run of this walkthrough\n'
    return 0
  fi
  printf '\nRemoving what an earlier run left: %s\n' "$(printf '%s, ' ${found[@]+"${found[@]}"} | sed 's/, $//')"
  for thing in "$@"; do
    remove_leftover "$thing"
  done
}

# leftover THING prints what is left of THING on the cluster (see remove_leftovers), or
# nothing.
leftover() {
  local kind=${1%%/*} rest=${1#*/} nodes
  case $kind in
    namespace)
      kubectl get namespace "$rest" -o go-template='namespace/{{.metadata.name}}{{if .metadata.deletionTimestamp}} (terminating){{end}}' 2>/dev/null || true
      ;;
    pool-records)
      pool_records "$rest" 2>/dev/null | awk '{ nodes[$2] = nodes[$2] " " $1 }
        END { for (pool in nodes) { printf "%sthe record of pool %s on%s", sep, pool, nodes[pool]; sep = ", " } }' || true
      ;;
    node-label)
      nodes=$(kubectl get nodes -l "$rest" -o name 2>/dev/null | sed 's#^node/##' | xargs || true)
      [[ -z $nodes ]] || echo "label $rest on $nodes"
      ;;
    node-taint)
      nodes=$(nodes_with_taint "$rest" 2>/dev/null || true)
      [[ -z $nodes ]] || echo "taint $rest on $nodes"
      ;;
    node-cordon) [[ $(kubectl get node "$rest" -o jsonpath='{.spec.unschedulable}' 2>/dev/null) != true ]] || echo "$rest cordoned" ;;
    *)
      if [[ $rest == */* ]]; then
        kubectl get "$kind" -n "${rest%%/*}" "${rest#*/}" --ignore-not-found -o name 2>/dev/null | sed "s#/#/${rest%%/*}/#" || true
      else
        kubectl get "$kind" "$rest" --ignore-not-found -o name 2>/dev/null || true
      fi
      ;;
  esac
}

# remove_leftover THING removes what is left of THING (see remove_leftovers).
remove_leftover() {
  local kind=${1%%/*} rest=${1#*/} node pod
  case $kind in
    namespace)
      kubectl get namespace "$rest" >/dev/null 2>&1 || return 0
      for pod in $(kubectl get pods -n "$rest" -o go-template='{{range .items}}{{if .metadata.finalizers}}{{.metadata.name}} {{end}}{{end}}' 2>/dev/null); do
        kubectl patch pod -n "$rest" "$pod" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
      done
      kubectl delete namespace "$rest" --ignore-not-found --wait=true --timeout=120s >/dev/null
      ;;
    nodepool)
      kubectl get nodepool "$rest" >/dev/null 2>&1 || return 0
      kubectl delete nodepool "$rest" --wait=false >/dev/null
      # A pool with members and the finalizer of lesson 06: a working manager cleans the
      # nodes and lets it go; pool-records/ does that for a broken one.
      if ! kubectl wait --for=delete "nodepool/$rest" --timeout=10s >/dev/null 2>&1; then
        kubectl patch nodepool "$rest" --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1 || true
        kubectl wait --for=delete "nodepool/$rest" --timeout=30s >/dev/null
      fi
      ;;
    pool-records)
      pool_records "$rest" | while read -r node pool; do
        remove_pool_record "$node" "$pool"
      done
      ;;
    node-label)
      for node in $(kubectl get nodes -l "$rest" -o name | sed 's#^node/##'); do
        kubectl label node "$node" "$rest-" >/dev/null
      done
      ;;
    node-taint)
      for node in $(nodes_with_taint "$rest"); do
        kubectl taint node "$node" "$rest-" >/dev/null
      done
      ;;
    node-cordon) [[ -z $(leftover "$1") ]] || kubectl uncordon "$rest" >/dev/null ;;
    *)
      if [[ $rest == */* ]]; then
        kubectl delete "$kind" -n "${rest%%/*}" "${rest#*/}" --ignore-not-found --wait=true --timeout=60s >/dev/null
      else
        kubectl delete "$kind" "$rest" --ignore-not-found --wait=true --timeout=60s >/dev/null
      fi
      ;;
  esac
}

# pool_records POOL prints "NODE POOL" for each record of a NodePool on a node (the
# annotation applied.nodes.workshop.dev/POOL) that is POOL's or a pool's that no longer
# exists.
pool_records() {
  local pools
  pools=$(kubectl get nodepools -o jsonpath='{.items[*].metadata.name}' 2>/dev/null || true)
  kubectl get nodes -o go-template='{{range $n := .items}}{{range $k, $v := $n.metadata.annotations}}{{$n.metadata.name}} {{$k}}{{"\n"}}{{end}}{{end}}' |
    awk -v pool="$1" -v pools=" $pools " 'sub(/^applied\.nodes\.workshop\.dev\//, "", $2) &&
      ($2 == pool || index(pools, " " $2 " ") == 0) { print $1, $2 }'
}

# nodes_with_taint KEY prints the nodes with a taint of key KEY, on one line.
nodes_with_taint() {
  kubectl get nodes -o go-template='{{range $n := .items}}{{range .spec.taints}}{{if eq .key "'"$1"'"}}{{$n.metadata.name}}{{"\n"}}{{end}}{{end}}{{end}}' | sort -u | xargs
}

# remove_pool_record NODE POOL removes from NODE the labels and taints that POOL's record
# lists, and the record: what the pool's manager would take back from a node that left.
remove_pool_record() {
  local node=$1 record key labels=()
  record=$(kubectl get node "$node" -o go-template='{{index .metadata.annotations "applied.nodes.workshop.dev/'"$2"'"}}')
  for key in $(record_entries labels "$record"); do labels+=("$key-"); done
  ((${#labels[@]} == 0)) || kubectl label node "$node" ${labels[@]+"${labels[@]}"} >/dev/null
  for key in $(record_entries taints "$record"); do
    kubectl taint node "$node" "$key-" >/dev/null 2>&1 || true # gone already
  done
  kubectl annotate node "$node" "applied.nodes.workshop.dev/$2-" >/dev/null
}

# record_entries labels|taints RECORD prints the label keys, or the taints as key:Effect,
# of a pool's record, {"labels":{"a/b":"1"},"taints":[{"key":"k","value":"v","effect":"E"}]},
# one a line. Keys and values hold no quote nor comma.
record_entries() {
  case $1 in
    labels) sed -n 's/.*"labels":{\([^}]*\)}.*/\1/p' <<<"$2" | tr ',' '\n' | sed -n 's/^"\([^"]*\)":.*/\1/p' ;;
    taints) { grep -o '{"key":"[^"]*"[^}]*"effect":"[^"]*"}' <<<"$2" || true; } | sed 's/{"key":"\([^"]*\)".*"effect":"\([^"]*\)"}/\1:\2/' ;;
  esac
}

# fresh_namespace NAME deletes NAME if an earlier walkthrough left it, and creates it.
fresh_namespace() {
  kubectl delete namespace "$1" --ignore-not-found --wait=true --timeout=60s >/dev/null
  run kubectl create namespace "$1"
}

# expect_metrics_only_for_readers NS READER BINDING scrapes the manager's metrics on
# METRICS_PORT as a scraper would: over plain HTTP, over HTTPS without a token, and with
# the token of a service account of NS that BINDING binds to READER, the stage's
# config/rbac/metrics_reader_role.yaml under that name. Only the last may read them. It
# deletes READER and BINDING when done.
expect_metrics_only_for_readers() {
  local ns=$1 reader=$2 binding=$3 scraper
  expect "plain HTTP gets no metrics" "400" "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$METRICS_PORT/metrics" \
    "200? cmd/main.go should serve the metrics with securemetrics.BindFlag, unless --metrics-secure=false"
  expect "without a token, 401" "401" "curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:$METRICS_PORT/metrics"
  run kubectl -n "$ns" create serviceaccount metrics-scraper
  show "sed 's/name: metrics-reader/name: $reader/' ${STAGE_DIR#"$ROOT"/}/config/rbac/metrics_reader_role.yaml | kubectl apply -f -"
  sed "s/name: metrics-reader/name: $reader/" "$STAGE_DIR/config/rbac/metrics_reader_role.yaml" | kubectl apply -f - | sed 's/^/    /'
  run kubectl create clusterrolebinding "$binding" --clusterrole="$reader" --serviceaccount="$ns:metrics-scraper"
  # The manager's filter keeps a refusal for 30 s: scrape once the API server's authorizer
  # knows the binding.
  expect "the API server lets the service account get /metrics" "yes" \
    "kubectl auth can-i get /metrics --as=system:serviceaccount:$ns:metrics-scraper"
  # shellcheck disable=SC2034 # the curl expect runs reads it: the token stays out of what is shown
  scraper=$(kubectl -n "$ns" create token metrics-scraper --duration=10m)
  expect "with the service account's token, the metrics" "200" \
    "curl -sk -o /dev/null -w '%{http_code}' -H \"Authorization: Bearer \$scraper\" https://127.0.0.1:$METRICS_PORT/metrics" \
    "403? the manager could not ask the API server: its role needs create on tokenreviews and subjectaccessreviews"
  kubectl delete clusterrolebinding "$binding" >/dev/null
  kubectl delete clusterrole "$reader" >/dev/null
}

summary() {
  printf '\n%d passed, %d failed\n' "$PASSED" "$FAILED"
  ((FAILED == 0))
}
