# shellcheck shell=bash
# Stage 02: status, the scale subresource and filtered events. Sourced by
# scripts/run-stage.sh, which runs the manager (events filtered: --filter-events defaults
# to true) and defines STAGE_DIR, METRICS_PORT, start_manager, stop_manager,
# manager_errors and the walkthrough vocabulary.
NS=workshop-02
METRIC='controller_runtime_reconcile_total{controller="imoocpod",result="success"}'
# ACTIVE, COLUMNS, GENERATIONS, READY_CONDITION, reconciles, measure_scale_to, touch_pods.
source "$ROOT/scripts/walkthroughs/imoocpod-status.sh"

remove_leftovers namespace/$NS

step "Create an ImoocPod asking for 3 pods"
fresh_namespace $NS
run kubectl apply -n $NS -f "$STAGE_DIR/config/samples/apps_v1_imoocpod.yaml"
expect "DESIRED CURRENT READY reach 3 3 3, like kubectl get rs" "3 3 3" "$COLUMNS" \
  "empty columns? add the printcolumn markers and regenerate; CURRENT or READY stuck? the status is not written: check patchStatus and the status subresource"
run kubectl get imoocpod -n $NS
expect "status.observedGeneration equals metadata.generation" "1 1" "$GENERATIONS" \
  "set status.observedGeneration to metadata.generation when a pass succeeds"
expect "the Ready condition is True" "True AllReplicasReady" "$READY_CONDITION" \
  "setReadyCondition sets it with meta.SetStatusCondition"
run kubectl get imoocpod demo -n $NS -o jsonpath='{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}'

step "Scale with kubectl scale (the scale subresource), events filtered"
measure_scale_to 6
filtered=$SCALE_PASSES
expect "status.observedGeneration follows the spec change" "2 2" "$GENERATIONS"
expect "the Ready condition is True again" "True AllReplicasReady" "$READY_CONDITION"
run kubectl get imoocpod -n $NS
printf '    scaling 3 -> 6 took %s reconciles (%s)\n' "$filtered" "$METRIC"

step "Annotate every pod: a change the controller does not read"
touch_pods 1
if ((TOUCH_PASSES == 0)); then
  pass "the annotations started no reconcile"
else
  fail "the annotations should start no reconcile" "they started $TOUCH_PASSES" \
    "podChangedPredicate should let an update through only when phase, readiness, deletion, labels or owners changed"
fi

step "The same without filtering: restart the manager with --filter-events=false"
stop_manager
start_manager --filter-events=false
run kubectl scale imoocpod demo -n $NS --replicas=3
expect "back to 3 3 3" "3 3 3" "$COLUMNS"
measure_scale_to 6
printf '    scaling 3 -> 6 took %s reconciles without filtering (%s with it): about the same, because\n' "$SCALE_PASSES" "$filtered"
printf '    the work queue merges the events of an ImoocPod that arrive while it waits for a worker\n'
touch_pods 2
printf '    the annotations started %s reconciles, each finding nothing to do: filtering saves the\n' "$TOUCH_PASSES"
printf '    steady trickle of updates the controller does not read\n'
if ((TOUCH_PASSES > 0)); then
  pass "without filtering, the annotations cost reconciles"
else
  fail "without filtering, the annotations should have started reconciles" "" \
    "eventFilters should return no predicates when FilterEvents is off"
fi

expect_collected ImoocPod imoocpod
expect_clean_log $NS
