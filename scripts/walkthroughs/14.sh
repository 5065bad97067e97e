# shellcheck shell=bash
# Stage 14: NodePool applies its labels with server-side apply, and the API server keeps
# the record of what each pool gave (managedFields). Sourced by scripts/run-stage.sh,
# which runs the manager and defines STAGE_DIR, manager_errors and the walkthrough
# vocabulary.
#
# Each hint names the task of lessons/14-nodepool-apply (TODO(k), lessons/index.json)
# whose absence explains the failure. NodePools and nodes are cluster-wide: the pool and
# its label keys have names of their own, and every label the walkthrough adds is gone at
# the end.
POOL=workshop-14
source "$ROOT/scripts/lib/nodepool.sh"
TIER=node-pool.workshop.dev/tier-14
DISK=node-pool.workshop.dev/disk-14
MANAGER=nodepool/$POOL
remove_leftovers nodepool/$POOL runtimeclass/$RUNTIME_CLASS node-label/$MEMBER node-label/$TIER node-label/$DISK pool-records/$POOL

# labels_by_manager NODE prints "MANAGER (OPERATION) KEY" for each label a field manager
# owns on NODE, from its managedFields.
labels_by_manager() {
  kubectl get node "$1" --show-managed-fields -o go-template='{{range .metadata.managedFields}}{{$m := .manager}}{{$o := .operation}}{{with index .fieldsV1 "f:metadata"}}{{with index . "f:labels"}}{{range $k, $v := .}}{{$m}} ({{$o}}) {{$k}}{{"\n"}}{{end}}{{end}}{{end}}{{end}}' |
    sed -n 's/ f:/ /p'
}

# owned NODE MANAGER prints the label keys MANAGER owns on NODE, sorted, on one line.
owned() {
  labels_by_manager "$1" | awk -v m="$2" '$1 == m { print $3 }' | sort | paste -sd' ' -
}

# managed NODE prints who owns the walkthrough's keys on NODE.
managed() {
  labels_by_manager "$1" | awk -v t="$TIER" -v d="$DISK" '$3 == t || $3 == d { print "    " $0 }'
}

# shellcheck disable=SC2119 # its one argument, --show-nodes, is optional
record_own_state

step "Create the NodePool $POOL: two labels and a taint"
write_pool apply-14 "$TIER: gold" "$DISK: ssd"
run cat "$MANIFEST"
run kubectl apply -f "$MANIFEST"

step "Label $N0 into the pool: the pool applies its labels as $MANAGER"
run kubectl label node "$N0" "$MEMBER="
expect "$N0 carries the pool's labels" "$DISK=ssd $TIER=gold" "pool_labels $N0" \
  "TODO(1): applyLabels sends the apply with r.Apply, as the pool's field manager"
expect "the pool's field manager owns them, by apply" "$DISK $TIER" "owned $N0 $MANAGER" \
  "TODO(1): client.FieldOwner(poolFieldManager(pool.Name))"
run kubectl get node "$N0" -o yaml --show-managed-fields
managed "$N0"
expect "the record annotation lists only the taint: the labels' record is managedFields" \
  '{"taints":[{"key":"node-pool.workshop.dev","value":"apply-14","effect":"PreferNoSchedule"}]}' \
  "kubectl get node $N0 -o jsonpath='{.metadata.annotations.applied\.nodes\.workshop\.dev/$POOL}'"

step "An admin labels $N1 $TIER=admin, then $N1 joins the pool"
run kubectl label node "$N1" "$TIER=admin"
run kubectl label node "$N1" "$MEMBER="
expect "$N1 gets the pool's other label, and keeps the admin's value" "$DISK=ssd $TIER=admin" "pool_labels $N1" \
  "admin's value gone? the apply must never force (TODO(1))"
expect "kubectl-label still owns $TIER, the pool owns only $DISK" "$DISK" "owned $N1 $MANAGER"
managed "$N1"
expect "the pool reports the conflict" "NodesInConflict" \
  "kubectl get nodepool $POOL -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].reason}'"
run kubectl get nodepool $POOL -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}{"\n"}'

step "$N1 leaves the pool: the pool's empty apply takes back what it alone owned"
run kubectl label node "$N1" "$MEMBER-"
expect "$N1 keeps only the admin's label" "$TIER=admin" "pool_labels $N1" \
  "$DISK still there? TODO(2): appliedLabels tells the pass that the node left, and what the pool owns"
expect "the pool's field manager owns nothing on $N1" "" "owned $N1 $MANAGER"
run kubectl label node "$N1" "$TIER-"

step "Clean up: $N0 leaves, then delete the pool"
run kubectl label node "$N0" "$MEMBER-"
expect "$N0 carries none of the pool's labels and taints" "" "pool_labels $N0; pool_taints $N0"
expect "$N0 keeps its own labels and taints, and no record" "$OWN0" "own_state $N0"
expect "$N1 keeps its own labels and taints, and no record" "$OWN1" "own_state $N1"
run kubectl delete nodepool "$POOL"

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
