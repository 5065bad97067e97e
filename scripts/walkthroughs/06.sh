# shellcheck shell=bash
# Stage 06: a finalizer lets a NodePool go only once its nodes are clean. Sourced by
# scripts/run-stage.sh, which runs the manager and defines STAGE_DIR, start_manager,
# stop_manager, manager_errors and the walkthrough vocabulary.
#
# NodePools and nodes are cluster-wide, and other walkthroughs may run on the same cluster
# at the same time: the pool has a name of its own, its taint is PreferNoSchedule (their
# pods may still land on its nodes), and every label the walkthrough adds is gone at the
# end.
POOL=workshop-06
source "$ROOT/scripts/lib/nodepool.sh"
remove_leftovers nodepool/$POOL runtimeclass/$RUNTIME_CLASS node-label/$MEMBER pool-records/$POOL

# pool_deletion prints whether the pool is being deleted, and its finalizers.
pool_deletion() {
  kubectl get nodepool "$POOL" -o go-template='{{if .metadata.deletionTimestamp}}being deleted{{else}}live{{end}}, finalizers {{.metadata.finalizers}}'
}

# show_log prints the manager's lines about nodes and the finalizer: level, message and
# the node and change they name.
show_log() {
  awk -F'\t' '$3 ~ /Patched node|finalizer/ {
      line = "    " $2 "  " $3
      if (match($4, /"node": "[^"]*", "change": "[^"]*"/)) line = line "  " substr($4, RSTART, RLENGTH)
      print line
    }' "$MANAGER_LOG"
}

# shellcheck disable=SC2119 # its one argument, --show-nodes, is optional
record_own_state

step "Create the NodePool $POOL and label two nodes into it"
write_sample_pool
run kubectl apply -f "$MANIFEST"
expect "the pool carries the controller's finalizer" '["nodes.workshop.dev/cleanup"]' \
  "kubectl get nodepool $POOL -o jsonpath='{.metadata.finalizers}'" \
  "add it with a patch in Reconcile, before the pass gives any node anything"
run kubectl label node "$N0" "$N1" "$MEMBER="
expect "$N0 carries the pool's labels" "node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=2" "pool_labels $N0"
expect "$N1 carries the pool's taint" "node-pool.workshop.dev=master:PreferNoSchedule" "pool_taints $N1"
expect "the RuntimeClass exists" "$RUNTIME_CLASS" "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.metadata.name}'"

step "Stop the manager, then delete the pool: the finalizer holds it"
stop_manager
run kubectl delete nodepool "$POOL" --wait=false
expect "the pool is still there, held by the finalizer" "being deleted, finalizers [nodes.workshop.dev/cleanup]" \
  "pool_deletion" "no finalizer? the API server deleted the pool at once, and nobody cleans its nodes"
run kubectl get nodepool "$POOL" -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}{"\n"}'
expect "the nodes still carry the pool's labels: nobody has cleaned them yet" "node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=2" \
  "pool_labels $N0"

step "Start the manager: it cleans the nodes, then lets the pool go"
start_manager
expect "$N0 carries none of the pool's labels and taints" "" "pool_labels $N0; pool_taints $N0" \
  "reconcileDelete takes everything back: poolShare gives nothing to anyone while the pool is being deleted"
expect "$N1 carries none of the pool's labels and taints" "" "pool_labels $N1; pool_taints $N1"
expect "the pool is gone: the controller removed its finalizer" "" "kubectl get nodepool $POOL --ignore-not-found -o name" \
  "is the finalizer removed with a patch once the nodes are clean?"
WAIT=90 expect "the garbage collector deleted the RuntimeClass" "" "kubectl get runtimeclass $RUNTIME_CLASS --ignore-not-found -o name"
expect "the membership labels stay: they are not the pool's to remove" "$N0 $N1" \
  "kubectl get nodes -l $MEMBER -o jsonpath='{.items[*].metadata.name}'"
run kubectl get nodes
printf '    the manager log, trimmed (%s):\n' "${MANAGER_LOG#"$ROOT"/}"
show_log

step "Clean up: take $N0 and $N1 out of the pool that no longer exists"
run kubectl label node "$N0" "$N1" "$MEMBER-"
expect "$N0 is as it was before the walkthrough" "$OWN0" "own_state $N0"
expect "$N1 is as it was before the walkthrough" "$OWN1" "own_state $N1"

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
expect "no write to the pool after its finalizer was gone (no 'Precondition failed: UID in precondition')" 0 \
  "grep -c 'Precondition failed' $MANAGER_LOG || true"
