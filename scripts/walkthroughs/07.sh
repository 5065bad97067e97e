# shellcheck shell=bash
# Stage 07: NodePool reports its status, and tells each real change with one event.
# Sourced by scripts/run-stage.sh, which runs the manager and defines STAGE_DIR,
# METRICS_PORT, start_manager, stop_manager, manager_errors and the walkthrough
# vocabulary.
#
# NodePools and nodes are cluster-wide, and other walkthroughs may run on the same cluster
# at the same time: the pool has a name of its own, its taint is PreferNoSchedule (their
# pods may still land on its nodes), and every label the walkthrough adds is gone at the
# end.
POOL=workshop-07
source "$ROOT/scripts/lib/nodepool.sh"
remove_leftovers nodepool/$POOL runtimeclass/$RUNTIME_CLASS node-label/$MEMBER pool-records/$POOL

# columns prints the STATUS and NODECOUNT columns of `kubectl get nodepool`.
columns() { kubectl get nodepool "$POOL" --no-headers | awk '{print $2, $3}'; }

# pool_events prints the reasons of the events about this very pool (POOL_UID: events
# outlive the objects they are about, and an earlier run's pool had the same name),
# sorted, each with "xN" when it was emitted N > 1 times.
pool_events() {
  kubectl get events.events.k8s.io -n default -o jsonpath="{range .items[?(@.regarding.uid==\"$POOL_UID\")]}{.reason}{' x'}{.series.count}{'\n'}{end}" |
    sed 's/ x$//' | sort | paste -sd' ' -
}

# reconciles prints how many passes of the nodepool controller have succeeded since the
# manager started, from its metrics endpoint.
reconciles() {
  curl -s "http://127.0.0.1:$METRICS_PORT/metrics" |
    awk '/^controller_runtime_reconcile_total\{controller="nodepool",result="success"\}/ {print $2}'
}

# shellcheck disable=SC2119 # its one argument, --show-nodes, is optional
record_own_state

step "Create the NodePool $POOL: no member yet"
write_sample_pool
run kubectl apply -f "$MANIFEST"
POOL_UID=$(kubectl get nodepool "$POOL" -o jsonpath='{.metadata.uid}')
expect "STATUS NODECOUNT say NoNodes 0" "NoNodes 0" "columns" \
  "empty columns? add the printcolumn markers and the status subresource, and regenerate"
run kubectl get nodepool "$POOL"
expect "no event: nothing happened to any node" "" "pool_events"

step "Label $N0 and then $N1 into the pool"
run kubectl label node "$N0" "$MEMBER="
expect "STATUS NODECOUNT say NodesConfigured 1" "NodesConfigured 1" "columns"
run kubectl label node "$N1" "$MEMBER="
expect "STATUS NODECOUNT say NodesConfigured 2" "NodesConfigured 2" "columns"
# The sums of the members' allocatable cpu and pods, which the status should show.
WANT_ALLOCATABLE=$(kubectl get node "$N0" "$N1" -o jsonpath='{range .items[*]}{.status.allocatable.cpu} {.status.allocatable.pods} {end}' |
  awk '{print $1 + $3, $2 + $4}')
expect "status.allocatable adds up the members' allocatable cpu and pods" "$WANT_ALLOCATABLE" \
  "kubectl get nodepool $POOL -o jsonpath='{.status.allocatable.cpu} {.status.allocatable.pods}'"
run kubectl get nodepool "$POOL" -o jsonpath='{.status.allocatable}{"\n"}'
expect "status.observedGeneration equals metadata.generation" "1 1" \
  "kubectl get nodepool $POOL -o jsonpath='{.metadata.generation} {.status.observedGeneration}'"
run kubectl get nodepool "$POOL"
expect "one NodeJoined event per node, each emitted once" "NodeJoined NodeJoined" "pool_events" \
  "more events, or 'x2'? emit an event only for a node a pass changed"

step "Restart the manager: it reconciles every pool again, and finds nothing to do"
stop_manager
start_manager
expect "the new manager has reconciled the pool" "yes" "(( \$(reconciles) > 0 )) && echo yes"
sleep 2
expect "still two events, each emitted once: an idle pass tells nothing" "NodeJoined NodeJoined" "pool_events" \
  "an event on every pass shows as (x123 over 12m)"

step "Update the labels: master 8 -> 10, test removed"
run kubectl patch nodepool "$POOL" --type=merge \
  -p '{"spec":{"labels":{"node-pool.workshop.dev/master":"10","node-pool.workshop.dev/test":null}}}'
expect "both members carry master=10 and no longer test=2" "node-pool.workshop.dev/master=10 node-pool.workshop.dev/master=10" \
  "echo \$(pool_labels $N0) \$(pool_labels $N1)"
expect "one NodeUpdated event for both members: one pass changed them" "NodeJoined NodeJoined NodeUpdated" "pool_events" \
  "one event per node? a pass tells each kind of change once, counting the nodes"
expect "status.observedGeneration follows the spec" "2 2" \
  "kubectl get nodepool $POOL -o jsonpath='{.metadata.generation} {.status.observedGeneration}'"

step "A label value no node accepts: the pass fails, and says so once"
ERRORS_BEFORE=$(manager_errors)
run kubectl patch nodepool "$POOL" --type=merge -p '{"spec":{"labels":{"node-pool.workshop.dev/bad":"not valid!"}}}'
expect "STATUS says ReconcileError" "ReconcileError 2" "columns"
run kubectl get nodepool "$POOL" -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}{"\n"}'
sleep 3
RETRIES=$(($(manager_errors) - ERRORS_BEFORE))
expect "one Warning event for the error, however often the queue retries" \
  "NodeJoined NodeJoined NodeUpdated ReconcileError" "pool_events" \
  "'ReconcileError x2'? a retry read the pool from a cache that did not show the last status patch yet"
printf '    the queue retried with backoff: %s errors in the log so far, one event\n' "$RETRIES"
run kubectl patch nodepool "$POOL" --type=merge -p '{"spec":{"labels":{"node-pool.workshop.dev/bad":null}}}'
expect "STATUS is back to NodesConfigured" "NodesConfigured 2" "columns"

step "$N1 leaves the pool"
run kubectl label node "$N1" "$MEMBER-"
expect "STATUS NODECOUNT say NodesConfigured 1" "NodesConfigured 1" "columns"
expect "$N1 carries none of the pool's labels and taints" "" "pool_labels $N1; pool_taints $N1"
expect "one NodeLeft event" "NodeJoined NodeJoined NodeLeft NodeUpdated ReconcileError" "pool_events"
run kubectl describe nodepool "$POOL"

step "Delete the pool while $N0 is still a member"
run kubectl delete nodepool "$POOL" --timeout=60s
expect "$N0 carries none of the pool's labels and taints" "" "pool_labels $N0; pool_taints $N0"
expect "a CleanupDone event, and a NodeLeft event for $N0" \
  "CleanupDone NodeJoined NodeJoined NodeLeft NodeLeft NodeUpdated ReconcileError" "pool_events"
WAIT=90 expect "the garbage collector deleted the RuntimeClass" "" "kubectl get runtimeclass $RUNTIME_CLASS --ignore-not-found -o name"

step "Clean up: take $N0 out of the pool that no longer exists"
run kubectl label node "$N0" "$MEMBER-"
expect "$N0 is as it was before the walkthrough" "$OWN0" "own_state $N0"
expect "$N1 is as it was before the walkthrough" "$OWN1" "own_state $N1"

step "The manager's log"
expect "the manager logged no errors but the bad label's" 0 \
  "grep '	ERROR	' $MANAGER_LOG | grep -vc 'not valid!' || true" "read $MANAGER_LOG"
