# shellcheck shell=bash
# A stage's manager on this machine: built from the stage's ./cmd, its CRDs and its
# webhook configurations installed on the cluster, started, waited for and stopped. One
# set of functions for scripts/run-stage.sh (make lesson-N and make run-N),
# scripts/faults.sh and scripts/bench.sh. Source after common.sh, with the workshop's
# kubectl on PATH. A failed start is explained by `workshop symptoms`
# (scripts/lib/symptoms.tsv).
#
#   manager_build DIR BINARY                      go build the stage's ./cmd
#   manager_install_crds DIR                      its CRDs, served when this returns
#   manager_webhook_host                          where the API server reaches this machine
#   manager_install_webhooks DIR HOST PORT CERTS  its webhook configurations, calling it here
#   manager_remove_webhooks DIR                   and taken off again
#   manager_remove_stale_webhooks HOST PORT       configurations an earlier run left
#   manager_start [--detach] [--wait S] BINARY LOG PROBE_PORT FLAGS...
#                                                 started and ready: MANAGER_PID
#   manager_run BINARY LOG PROBE_PORT FLAGS...    in the foreground, until it exits
#   manager_stop PID [SIGNAL]                     stopped, and gone

# manager_build DIR BINARY builds the manager of the stage in DIR (its ./cmd) into BINARY.
manager_build() {
  mkdir -p "$(dirname "$2")"
  (cd "$1" && go build -o "$2" ./cmd)
}

# manager_build_debug DIR BINARY builds the manager of the stage in DIR as manager_build
# does, with the compiler's optimisations and inlining off (-gcflags=all=-N -l): a
# debugger then sees every variable and can stop on every line.
manager_build_debug() {
  mkdir -p "$(dirname "$2")"
  (cd "$1" && go build -gcflags='all=-N -l' -o "$2" ./cmd)
}

# manager_delve_args PORT BINARY prints, one a line, the arguments of `dlv` that run
# BINARY under a headless Delve on 127.0.0.1:PORT: JSON-RPC API version 2, which VS Code
# and GoLand speak, several clients at once (a script and an editor), the program running
# from the start; the manager's own flags follow a "--".
manager_delve_args() {
  printf '%s\n' exec --headless "--listen=127.0.0.1:$1" --api-version=2 --accept-multiclient --continue "$2" --
}

# manager_install_crds DIR applies the CRDs of the stage in DIR (apply_crds) and waits
# until the API server serves them.
manager_install_crds() {
  apply_crds "$1/config/crd/bases" >/dev/null
  wait_established -f "$1/config/crd/bases"
  refresh_discovery
}

# manager_has_webhooks DIR succeeds when the stage in DIR has admission webhooks, or a
# CRD with a version it does not store, whose conversions the manager serves.
manager_has_webhooks() {
  [[ -f $1/config/webhook/manifests.yaml ]] || grep -qs '^    storage: false$' "$1"/config/crd/bases/*.yaml
}

# manager_webhook_host prints the address the API server calls a manager on this machine
# at: 127.0.0.1 for the embedded cluster, whose API server runs here; for a kind cluster,
# whose API server runs in a container, the kind network's gateway with Docker Engine on
# Linux, and host.docker.internal where Docker runs in a VM (Docker Desktop, colima).
# The manager listens on every address. scripts/tools/workshop/webhookhost.go decides,
# and says why; WEBHOOK_HOST overrides it.
manager_webhook_host() {
  "$(tool_path workshop)" -root "$ROOT" webhook-host
}

# manager_install_webhooks DIR HOST PORT CERT_DIR installs the webhook configurations of
# the stage in DIR (scripts/tools/localwebhook), calling the manager at
# https://HOST:PORT, and points the conversions of its CRDs that serve several versions
# at https://HOST:PORT/convert; it writes the certificate the manager serves to
# CERT_DIR: start it with --webhook-port PORT --webhook-cert-dir CERT_DIR.
manager_install_webhooks() {
  tool localwebhook -webhooks "$1/config/webhook" -crds "$1/config/crd/bases" -host "$2" -port "$3" -cert-dir "$4" >/dev/null
}

# manager_remove_webhooks DIR deletes the webhook configurations of the stage in DIR and
# sets its CRDs' conversions back to None: with no manager to answer them, they would make
# the API server refuse (failurePolicy Fail) every change they cover, and every read of
# a version other than the stored one.
manager_remove_webhooks() {
  tool localwebhook -webhooks "$1/config/webhook" -crds "$1/config/crd/bases" -uninstall
}

# manager_remove_stale_webhooks HOST PORT deletes the webhook configurations that call a
# manager at https://HOST:PORT, and says which. Only one manager can serve that port, the
# one about to start: a configuration there was left by an earlier run (of this stage or
# another) that could not remove it, and would send the API server's calls to the wrong
# manager, or to none.
manager_remove_stale_webhooks() {
  local stale
  stale=$(kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations -o go-template='{{range .items}}{{$name := .metadata.name}}{{$kind := .kind}}{{range .webhooks}}{{if .clientConfig.url}}{{$kind}}/{{$name}} {{.clientConfig.url}}{{"\n"}}{{end}}{{end}}{{end}}' |
    awk -v url="https://$1:$2/" 'index($2, url) == 1 { print tolower($1) }' | sort -u | paste -sd' ' -)
  [[ -n $stale ]] || return 0
  say "Removing the webhook configurations an earlier run left, which call https://$1:$2: $stale"
  # shellcheck disable=SC2086 # one word per configuration
  kubectl delete --ignore-not-found $stale >/dev/null
}

MANAGER_PID=

# manager_start [--detach] [--wait SECONDS] BINARY LOG PROBE_PORT [FLAGS...] starts the
# manager BINARY in the background, with its health probes on 127.0.0.1:PROBE_PORT and
# FLAGS, its output appended to LOG; sets MANAGER_PID and waits until it is ready
# (manager_wait_ready, SECONDS: 10). --detach starts it outside this shell's jobs: a
# manager killed from outside (scripts/tools/podwatch) is then reaped at once, and no job
# notice interrupts what the script prints.
manager_start() {
  local detach='' seconds=10
  while [[ ${1:-} == --* ]]; do
    case $1 in
      --detach) detach=1 && shift ;;
      --wait) seconds=$2 && shift 2 ;;
      *) die "manager_start: unknown option $1" ;;
    esac
  done
  local binary=$1 log=$2 probe=$3
  shift 3
  if [[ -n $detach ]]; then
    MANAGER_PID=$(sh -c '"$@" >>"$0" 2>&1 </dev/null & echo $!' "$log" \
      "$binary" --health-probe-bind-address "127.0.0.1:$probe" "$@")
  else
    "$binary" --health-probe-bind-address "127.0.0.1:$probe" "$@" >>"$log" 2>&1 &
    MANAGER_PID=$!
  fi
  manager_wait_ready "$MANAGER_PID" "$probe" "$log" "$seconds"
}

# manager_start_debug BINARY LOG PROBE_PORT DLV_PORT [FLAGS...] starts the manager BINARY
# (built by manager_build_debug) under Delve, listening on 127.0.0.1:DLV_PORT, as
# manager_start does without it: MANAGER_PID is Delve's, and stopping it stops the
# manager. It waits up to 60 s for the manager to be ready: Delve reads the binary's
# debug information first.
manager_start_debug() {
  local binary=$1 log=$2 probe=$3 port=$4 args=() arg
  shift 4
  while IFS= read -r arg; do args+=("$arg"); done < <(manager_delve_args "$port" "$binary")
  "${DLV:-dlv}" ${args[@]+"${args[@]}"} --health-probe-bind-address "127.0.0.1:$probe" "$@" >>"$log" 2>&1 &
  MANAGER_PID=$!
  manager_wait_ready "$MANAGER_PID" "$probe" "$log" 60
}

# manager_wait_ready PID PROBE_PORT LOG SECONDS waits until the manager PID answers
# /readyz on PROBE_PORT and is still alive after it: another process on the port could
# answer for a manager that failed to bind it. A manager that exits first, or is not ready
# in SECONDS, is stopped, and the script stops with its log's last lines and the known
# problems they show (workshop symptoms: scripts/lib/symptoms.tsv).
manager_wait_ready() {
  local pid=$1 probe=$2 log=$3 seconds=$4 deadline problem=
  deadline=$(($(date +%s) + seconds))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      problem="the manager exited before it was ready"
      break
    fi
    if curl -fs "http://127.0.0.1:$probe/readyz" >/dev/null 2>&1; then
      sleep 0.2
      kill -0 "$pid" 2>/dev/null && return
      continue
    fi
    if (($(date +%s) >= deadline)); then
      problem="the manager was not ready after ${seconds}s (http://127.0.0.1:$probe/readyz)"
      manager_stop "$pid"
      break
    fi
    sleep 0.1
  done
  workshop symptoms "$log"
  die "$problem; the last lines of its log, ${log#"$ROOT"/}:"$'\n'"$(tail -n 20 "$log")"
}

# manager_run BINARY LOG PROBE_PORT [FLAGS...] runs the manager in the foreground until it
# exits, its output on the terminal and in LOG; then names the known problems its log
# shows and returns its exit status. Ctrl-C stops the manager, not this shell.
manager_run() {
  local binary=$1 log=$2 probe=$3 status=0
  shift 3
  # The manager handles Ctrl-C itself and shuts down cleanly; this shell only waits for
  # it (a trap handler, unlike an ignored signal, is not passed on to the manager), and
  # tee ignores Ctrl-C so that the manager's last lines still reach the terminal.
  trap ':' INT
  "$binary" --health-probe-bind-address "127.0.0.1:$probe" "$@" 2>&1 |
    (trap '' INT && exec tee "$log") || status=$?
  trap - INT
  workshop symptoms "$log"
  return "$status"
}

# manager_stop PID [SIGNAL] stops the manager PID with SIGNAL (TERM, which it handles
# as a pod's shutdown; KILL for a crash) and waits until it is gone; after 10 s of TERM
# it is killed. Nothing happens when PID is empty or gone already.
manager_stop() {
  local pid=$1 signal=${2:-TERM}
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  # Collects a child of this shell's exit status; a detached manager is not one.
  wait "$pid" 2>/dev/null || true
}
