# shellcheck shell=bash
# Stage 12: the ImoocPod controller of lesson 02 on bare client-go. Sourced by
# scripts/run-stage.sh, which runs the manager and defines STAGE_DIR, METRICS_PORT,
# start_manager, stop_manager, MANAGER_ERRORS, MANAGER_LOG and the walkthrough vocabulary. The
# same CRD as stage 02, the same behaviour: the checks of 02 that do not depend on
# controller-runtime, then what this manager does by hand (cache sync, shutdown).
NS=workshop-12
# The manager's own counter of successful passes (internal/controller/metrics.go).
METRIC='workshop_sync_total{controller="imoocpod",result="success"}'
# ACTIVE, COLUMNS, GENERATIONS, READY_CONDITION, reconciles, measure_scale_to, touch_pods.
source "$ROOT/scripts/walkthroughs/imoocpod-status.sh"
remove_leftovers namespace/$NS
LOG=${MANAGER_LOG#"$ROOT"/}
# in_order FIRST SECOND prints "in order" when the log's first line with FIRST comes
# before its first line with SECOND.
in_order() {
  local first second
  first=$(grep -n -m1 -F "$1" "$MANAGER_LOG" | cut -d: -f1)
  second=$(grep -n -m1 -F "$2" "$MANAGER_LOG" | cut -d: -f1)
  if [[ -n $first && -n $second ]] && ((first < second)); then echo "in order"; else echo "'$1' at line ${first:-none}, '$2' at line ${second:-none}"; fi
}

step "The manager filled its caches before its workers started"
expect "the log says the caches synced, then the workers started" "in order" "in_order 'Caches are synced' 'Starting workers'" \
  "Run must wait for cache.WaitForNamedCacheSyncWithContext before it starts a worker"
run grep -m3 -e 'Waiting for caches' -e 'Caches are synced' -e 'Starting workers' "$LOG"
expect "/readyz answers ok" "ok" "curl -s http://127.0.0.1:$PROBE_PORT/readyz"

step "Create an ImoocPod asking for 3 pods"
fresh_namespace $NS
run kubectl apply -n $NS -f "$STAGE_DIR/config/samples/apps_v1_imoocpod.yaml"
expect "DESIRED CURRENT READY reach 3 3 3, like kubectl get rs" "3 3 3" "$COLUMNS" \
  "no pods? a pass never ran: check processNextWorkItem and the log; CURRENT or READY stuck? do pod events reach the queue (enqueueController)?"
expect "every pod is controlled by the ImoocPod demo" "ImoocPod/demo ImoocPod/demo ImoocPod/demo" \
  "kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o jsonpath='{range .items[*]}{.metadata.ownerReferences[?(@.controller==true)].kind}/{.metadata.ownerReferences[?(@.controller==true)].name} {end}' | xargs" \
  "newPod should set a controller reference (metav1.NewControllerRef)"
expect "status.observedGeneration equals metadata.generation" "1 1" "$GENERATIONS"
expect "the Ready condition is True" "True AllReplicasReady" "$READY_CONDITION"
run kubectl get imoocpod -n $NS

step "Scale with kubectl scale (the scale subresource)"
measure_scale_to 6
expect "status.observedGeneration follows the spec change" "2 2" "$GENERATIONS" \
  "a spec change must enqueue the ImoocPod: updateImoocPod compares the generations"
expect "the Ready condition is True again" "True AllReplicasReady" "$READY_CONDITION"
printf '    scaling 3 -> 6 took %s passes (%s)\n' "$SCALE_PASSES" "$METRIC"

step "Annotate every pod: a change the controller does not read"
touch_pods 1
if ((TOUCH_PASSES == 0)); then
  pass "the annotations started no pass"
else
  fail "the annotations should start no pass" "they started $TOUCH_PASSES" \
    "updatePod should enqueue only when podChanged says so"
fi

step "Delete a pod behind the controller's back"
victim=$(kubectl get pods -n $NS -l apps.workshop.dev/imoocpod=demo -o jsonpath='{.items[0].metadata.name}')
run kubectl delete pod -n $NS "$victim" --wait=false
expect "$victim is gone and another pod replaced it: 6 pods" "0 6" \
  "echo \$(kubectl get pods -n $NS --no-headers 2>/dev/null | grep -c '^$victim ') \$($ACTIVE)" \
  "the pod informer's delete event must enqueue the pod's controller (enqueueController)"

step "Stop the manager with SIGTERM: its workers stop, then it exits"
stop_manager
expect "the log says the workers stopped, then the manager" "in order" "in_order 'Stopped workers' 'The manager stopped'" \
  "main's signal.NotifyContext ends the context Run waits on; Run shuts the queue down and waits for its workers"
run grep -e 'Stopping workers' -e 'Stopped workers' -e 'The manager stopped' "$LOG"

step "Scale to 2 while no manager runs, then start it again"
run kubectl scale imoocpod demo -n $NS --replicas=2
start_manager
expect "the new manager listed everything and caught up: DESIRED CURRENT READY reach 2 2 2" "2 2 2" "$COLUMNS" \
  "a manager learns of what happened while it was down from its informers' first list: every ImoocPod is an add event"

expect_collected ImoocPod imoocpod
expect_clean_log $NS
