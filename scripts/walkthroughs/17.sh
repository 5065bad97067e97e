# shellcheck shell=bash
# Stage 17: observing and debugging SidecarSet. Sourced by scripts/run-stage.sh, which has
# installed the webhook configurations pointed at the manager on this machine and defines
# ROOT, STAGE_DIR, STAGE_CACHE, METRICS_PORT, PROBE_PORT, MANAGER_ARGS, MANAGER_LOG,
# start_manager, stop_manager and the walkthrough vocabulary. It restarts the manager
# with its metrics in plain HTTP (the secured endpoint is the tests'), its spans written
# to a file and its profiles served; then under Delve, where a script stops it in
# Reconcile as an editor would.
NS=workshop-17
TRACE_FILE=$STAGE_CACHE/trace-17.json
PPROF_PORT=${PPROF_PORT:-18082}
DLV_PORT=${DLV_PORT:-2345}

# metric NAME prints the value of the series NAME (with its labels, as /metrics writes
# them) that the manager serves.
metric() {
  curl -fs "http://127.0.0.1:$METRICS_PORT/metrics" | awk -v name="$1" '$1 == name {print $2}'
}

# spans NAME prints how many spans named NAME the trace file holds.
spans() { grep -c "\"Name\":\"$1\"" "$TRACE_FILE" || true; }

remove_leftovers sidecarset/observed sidecarset/debugged namespace/$NS
kubectl get namespace sidecarset-system >/dev/null 2>&1 || kubectl create namespace sidecarset-system >/dev/null

step "The manager, restarted with its metrics in plain HTTP, its spans in a file and its profiles served"
stop_manager
rm -f "$TRACE_FILE"
start_manager --metrics-secure=false --trace-file "$TRACE_FILE" --pprof-bind-address "127.0.0.1:$PPROF_PORT"
fresh_namespace $NS
run kubectl apply -f - <<YAML
apiVersion: sidecars.workshop.dev/v1
kind: SidecarSet
metadata:
  name: observed
spec:
  selector:
    matchLabels:
      app: observed
  containers:
  - name: log-shipper
    image: busybox:1.37
YAML
for i in 1 2 3; do
  run kubectl run "web-$i" -n $NS --image=registry.k8s.io/pause:3.10 --labels=app=observed
done

step "Metrics: what the webhook answered, how fast, and how passes ended"
expect "the webhook counts the three pods it injected" "3" \
  "metric 'sidecarset_webhook_pods_total{outcome=\"injected\"}'" \
  "TODO(2): Handle records its outcome with telemetry.ObserveAdmission"
expect "and timed each answer, the pods' and any others', in buckets of milliseconds" "yes" \
  "[ \"\$(metric 'sidecarset_webhook_injection_duration_seconds_bucket{le=\"0.00025\"}')\" != '' ] && [ \$(metric sidecarset_webhook_injection_duration_seconds_count) -ge 3 ] && echo yes" \
  "TODO(1): the histogram's buckets, 0.25 ms to about 2 s; TODO(2): Handle times every answer"
run sh -c "curl -fs http://127.0.0.1:$METRICS_PORT/metrics | grep '^sidecarset_'"

step "Profiles: the heap of the running manager, from pprof"
run sh -c "curl -fs -o '$STAGE_CACHE/heap-17.pb.gz' 'http://127.0.0.1:$PPROF_PORT/debug/pprof/heap?gc=1' && go tool pprof -top -sample_index=inuse_space '$STAGE_CACHE/heap-17.pb.gz' 2>/dev/null | head -n 8"

step "Traces: a span per pass, its API calls as children, in the file once the manager stops"
stop_manager
expect "the file holds spans of passes" "yes" "[ \$(spans SidecarSet.Reconcile) -gt 0 ] && echo yes" \
  "TODO(3): Reconcile starts a span and ends it on every return"
run sh -c "grep -o '\"Name\":\"[A-Z]* /apis/sidecars.workshop.dev/v1/sidecarsets/observed[a-z/]*\"' '$TRACE_FILE' | sort | uniq -c"

step "The debugger: Reconcile stops under Delve with the request's name, then runs on"
debug_manager=$STAGE_CACHE/manager-17-debug
run sh -c "cd '$STAGE_DIR' && go build -gcflags='all=-N -l' -o '$debug_manager' ./cmd"
(cd "$ROOT/scripts/delve" && GOWORK=off go build -o "$STAGE_CACHE/stopat" ./stopat)
manager_start_debug "$debug_manager" "$MANAGER_LOG" "$PROBE_PORT" "$DLV_PORT" "${MANAGER_ARGS[@]}"
ready=$STAGE_CACHE/stopat-17.ready
stopped=$STAGE_CACHE/stopat-17.json
rm -f "$ready" "$stopped"
# Delve names a method by its package's import path: the stage's own module.
module=$(cd "$STAGE_DIR" && GOWORK=off go list -m)
reconcile=$module/internal/controller.'(*SidecarSetReconciler).Reconcile'
"$STAGE_CACHE/stopat" -addr "127.0.0.1:$DLV_PORT" -function "$reconcile" -cond 'req.Name == "debugged"' \
  -eval req.Name -ready "$ready" >"$stopped" 2>>"$MANAGER_LOG" &
stopat_pid=$!
expect "a breakpoint is set on Reconcile, for the request debugged" "yes" "[ -s '$ready' ] && echo yes"
run kubectl apply -f - <<YAML
apiVersion: sidecars.workshop.dev/v1
kind: SidecarSet
metadata:
  name: debugged
spec:
  selector:
    matchLabels:
      app: debugged
  containers:
  - name: log-shipper
    image: busybox:1.37
YAML
wait "$stopat_pid" || true
run cat "$stopped"
expect "the breakpoint was hit in Reconcile with the request's name" "debugged" \
  "sed -n 's/.*\"value\":\"\\([^\"]*\\)\".*/\\1/p' '$stopped'"
expect "continued, the pass wrote the status" "NoMatchingPods" \
  "kubectl get sidecarset debugged -o jsonpath='{.status.conditions[?(@.type==\"Injected\")].reason}'"

run kubectl delete sidecarset observed debugged
kubectl delete namespace $NS --wait=false >/dev/null
