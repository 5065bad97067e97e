# Stage 05: NodePool gives its nodes labels and taints, and owns a RuntimeClass. Sourced by
# scripts/run-stage.sh, which runs the manager and defines STAGE_DIR, manager_errors and
# the walkthrough vocabulary.
#
# NodePools and nodes are cluster-wide, and other walkthroughs may run on the same cluster
# at the same time: the pool has a name of its own, its taint is PreferNoSchedule (their
# pods may still land on its nodes), and every label the walkthrough adds is gone at the
# end.
POOL=workshop-05
source "$ROOT/scripts/lib/nodepool.sh"
remove_leftovers nodepool/$POOL runtimeclass/$RUNTIME_CLASS node-label/$MEMBER pool-records/$POOL

step "Before: what the nodes carry that is not ours"
run kubectl get nodes
OWN0=$(own_state $N0)
OWN1=$(own_state $N1)
printf '    %s: %s\n' "$N0" "$OWN0"

step "Create the NodePool $POOL: the example's labels and taint"
cat >"$MANIFEST" <<EOF
apiVersion: nodes.workshop.dev/v1
kind: NodePool
metadata:
  name: $POOL
spec:
  handler: runc
  labels:
    node-pool.workshop.dev/master: "8"
    node-pool.workshop.dev/test: "2"
  taints:
  - key: node-pool.workshop.dev
    value: master
    effect: PreferNoSchedule
EOF
run cat "$MANIFEST"
run kubectl apply -f "$MANIFEST"
expect "the RuntimeClass $RUNTIME_CLASS exists, with the pool's handler" "runc" \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.handler}'" \
  "no RuntimeClass? read the manager's log; reconcileRuntimeClass creates it from newRuntimeClass"
expect "no node carries the pool's labels: no node is a member yet" "" "pool_labels $N0"

step "Label $N0 into the pool"
run kubectl label node $N0 "$MEMBER="
expect "$N0 carries the pool's labels" "node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=2" \
  "pool_labels $N0" "no labels? the node watch maps a node to the pools of its node-role labels (poolsOfNode)"
expect "$N0 carries the pool's taint" "node-pool.workshop.dev=master:PreferNoSchedule" "pool_taints $N0"
expect "$N0 records what the pool gave it" \
  '{"labels":["node-pool.workshop.dev/master","node-pool.workshop.dev/test"],"taints":["node-pool.workshop.dev:PreferNoSchedule"]}' \
  "kubectl get node $N0 -o jsonpath='{.metadata.annotations.applied\.nodes\.workshop\.dev/$POOL}'"
run kubectl get nodes -L node-pool.workshop.dev/master -L node-pool.workshop.dev/test
expect "the RuntimeClass selects the pool's labels" \
  '{"node-pool.workshop.dev/master":"8","node-pool.workshop.dev/test":"2"}' \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.scheduling.nodeSelector}'"
expect "the RuntimeClass tolerates the pool's taint" "node-pool.workshop.dev Equal master PreferNoSchedule" \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{range .scheduling.tolerations[*]}{.key} {.operator} {.value} {.effect}{end}'"
run kubectl describe runtimeclass "$RUNTIME_CLASS"

step "Update the labels: master 8 -> 10, test removed"
run kubectl patch nodepool "$POOL" --type=merge \
  -p '{"spec":{"labels":{"node-pool.workshop.dev/master":"10","node-pool.workshop.dev/test":null}}}'
expect "$N0 carries master=10 and no longer test=2" "node-pool.workshop.dev/master=10" \
  "pool_labels $N0" "test=2 still there? the record lists it: remove what it lists and the spec no longer does"
expect "the RuntimeClass follows" '{"node-pool.workshop.dev/master":"10"}' \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.scheduling.nodeSelector}'"

step "Label $N1 into the pool too"
run kubectl label node $N1 "$MEMBER="
expect "$N1 carries the pool's labels" "node-pool.workshop.dev/master=10" "pool_labels $N1"
expect "$N1 carries the pool's taint" "node-pool.workshop.dev=master:PreferNoSchedule" "pool_taints $N1"
expect "$N0 still does" "node-pool.workshop.dev/master=10" "pool_labels $N0"
expect "$N2, not a member, carries nothing of the pool's" "" "pool_labels $N2; pool_taints $N2"
run kubectl get nodes -L node-pool.workshop.dev/master

step "The RuntimeClass belongs to the pool: its OwnerReference names the pool's UID"
UID_OF_POOL=$(kubectl get nodepool "$POOL" -o jsonpath='{.metadata.uid}')
run kubectl get nodepool "$POOL" -o jsonpath='{.metadata.uid}{"\n"}'
expect "the RuntimeClass's controller OwnerReference has the pool's UID" "NodePool $UID_OF_POOL" \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.metadata.ownerReferences[?(@.controller==true)].kind} {.metadata.ownerReferences[?(@.controller==true)].uid}'" \
  "SetControllerReference(pool, runtimeClass, scheme) before creating it"

step "Change the handler: the API server refuses to change a RuntimeClass's, so it is replaced"
OLD_RC_UID=$(kubectl get runtimeclass "$RUNTIME_CLASS" -o jsonpath='{.metadata.uid}')
run kubectl patch nodepool "$POOL" --type=merge -p '{"spec":{"handler":"kata"}}'
expect "the RuntimeClass has the new handler" "kata" "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.handler}'" \
  "an error 'field is immutable' in the log? delete the RuntimeClass and let the next pass create it"
expect "it is a new RuntimeClass" "new" \
  "[[ \$(kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.metadata.uid}') != $OLD_RC_UID ]] && echo new"

step "$N1 leaves the pool: it loses exactly what the pool gave it"
run kubectl label node $N1 "$MEMBER-"
expect "$N1 carries none of the pool's labels" "" "pool_labels $N1" \
  "the node no longer maps to the pool by its label: poolsOfNode must map it by its record too"
expect "$N1 carries none of the pool's taints" "" "pool_taints $N1"
expect "$N1 keeps its own labels and taints, and no record" "$OWN1" "own_state $N1"
expect "$N0 is still a member" "node-pool.workshop.dev/master=10" "pool_labels $N0"

step "Clean up: $N0 leaves, then delete the pool"
run kubectl label node $N0 "$MEMBER-"
expect "$N0 carries none of the pool's labels" "" "pool_labels $N0; pool_taints $N0"
expect "$N0 keeps its own labels and taints, and no record" "$OWN0" "own_state $N0"
run kubectl delete nodepool "$POOL" --wait=false
expect "the garbage collector deleted the RuntimeClass (it followed the OwnerReference)" "" \
  "kubectl get runtimeclass $RUNTIME_CLASS --ignore-not-found -o name"
printf '    (Deleting a pool that still has members would leave its labels and taints on them:\n'
printf '    the pool is gone, and with it what it gave. Lesson 06 adds a finalizer for that.)\n'

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${log#"$ROOT"/}"
