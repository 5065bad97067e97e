# shellcheck shell=bash
# Stage 05: NodePool gives its nodes labels and taints, and owns a RuntimeClass. Sourced by
# scripts/run-stage.sh, which runs the manager and defines STAGE_DIR, manager_errors and
# the walkthrough vocabulary.
#
# Each hint names the task of lessons/05-nodepool (TODO(k), lessons/index.json) whose
# absence explains the failure; where several could, the first one to check. The
# manager runs as the administrator here: TODO(8), its role, is checked by make check-5
# and used from lesson 09 on.
#
# NodePools and nodes are cluster-wide, and other walkthroughs may run on the same cluster
# at the same time: the pool has a name of its own, its taint is PreferNoSchedule (their
# pods may still land on its nodes), and every label the walkthrough adds is gone at the
# end.
POOL=workshop-05
source "$ROOT/scripts/lib/nodepool.sh"
remove_leftovers nodepool/$POOL runtimeclass/$RUNTIME_CLASS node-label/$MEMBER pool-records/$POOL

record_own_state --show-nodes

step "Create the NodePool $POOL: the example's labels and taint"
write_sample_pool
run cat "$MANIFEST"
run kubectl apply -f "$MANIFEST"
expect "the RuntimeClass $RUNTIME_CLASS exists, with the pool's handler" "runc" \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.handler}'" \
  "no RuntimeClass? TODO(5): Reconcile must get the pool and call reconcileNodes and reconcileRuntimeClass; then TODO(6): reconcileRuntimeClass creates it (the manager's log says what a pass did)"
expect "no node carries the pool's labels: no node is a member yet" "" "pool_labels $N0" \
  "TODO(3): concernsPool should pick the pool's members and the nodes with its record, no other"

step "Label $N0 into the pool"
run kubectl label node "$N0" "$MEMBER="
expect "$N0 carries the pool's labels" "node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=2" \
  "pool_labels $N0" \
  "no labels and no record (next check)? no pass patched the node: TODO(5), the pass, patches it in syncNode; a node that joins starts a pass only with TODO(7), the node watch, and TODO(4), poolsOfNode. A record but no labels? TODO(1), setPoolLabels"
expect "$N0 carries the pool's taint" "node-pool.workshop.dev=master:PreferNoSchedule" "pool_taints $N0" \
  "labels but no taint? TODO(2): setPoolTaints appends the pool's missing taints"
expect "$N0 records what the pool gave it" \
  '{"labels":{"node-pool.workshop.dev/master":"8","node-pool.workshop.dev/test":"2"},"taints":[{"key":"node-pool.workshop.dev","value":"master","effect":"PreferNoSchedule"}]}' \
  "kubectl get node $N0 -o jsonpath='{.metadata.annotations.applied\.nodes\.workshop\.dev/$POOL}'" \
  "no record? no pass patched the node (see the labels' hint): TODO(5) writes withPool's node, record included"
run kubectl get nodes -L node-pool.workshop.dev/master -L node-pool.workshop.dev/test
expect "the RuntimeClass selects the pool's labels" \
  '{"node-pool.workshop.dev/master":"8","node-pool.workshop.dev/test":"2"}' \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.scheduling.nodeSelector}'" \
  "TODO(6): poolScheduling gives the pool's labels as the node selector"
expect "the RuntimeClass tolerates the pool's taint" "node-pool.workshop.dev Equal master PreferNoSchedule" \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{range .scheduling.tolerations[*]}{.key} {.operator} {.value} {.effect}{end}'" \
  "TODO(6): poolScheduling gives a toleration (operator Equal) of each of the pool's taints"
run kubectl describe runtimeclass "$RUNTIME_CLASS"

step "Update the labels: master 8 -> 10, test removed"
run kubectl patch nodepool "$POOL" --type=merge \
  -p '{"spec":{"labels":{"node-pool.workshop.dev/master":"10","node-pool.workshop.dev/test":null}}}'
expect "$N0 carries master=10 and no longer test=2" "node-pool.workshop.dev/master=10" \
  "pool_labels $N0" "test=2 still there? TODO(1): setPoolLabels deletes the keys the record lists and the spec no longer does"
expect "the RuntimeClass follows" '{"node-pool.workshop.dev/master":"10"}' \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.scheduling.nodeSelector}'" \
  "TODO(6): reconcileRuntimeClass patches the scheduling of the RuntimeClass there when it differs"

step "Label $N1 into the pool too"
run kubectl label node "$N1" "$MEMBER="
expect "$N1 carries the pool's labels" "node-pool.workshop.dev/master=10" "pool_labels $N1" \
  "a node that joins starts a pass only with TODO(7), the node watch, and TODO(4), poolsOfNode"
expect "$N1 carries the pool's taint" "node-pool.workshop.dev=master:PreferNoSchedule" "pool_taints $N1"
expect "$N0 still does" "node-pool.workshop.dev/master=10" "pool_labels $N0"
expect "$N2, not a member, carries nothing of the pool's" "" "pool_labels $N2; pool_taints $N2" \
  "TODO(3): concernsPool should pick the pool's members and the nodes with its record, no other"
run kubectl get nodes -L node-pool.workshop.dev/master

step "The RuntimeClass belongs to the pool: its OwnerReference names the pool's UID"
UID_OF_POOL=$(kubectl get nodepool "$POOL" -o jsonpath='{.metadata.uid}')
run kubectl get nodepool "$POOL" -o jsonpath='{.metadata.uid}{"\n"}'
expect "the RuntimeClass's controller OwnerReference has the pool's UID" "NodePool $UID_OF_POOL" \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.metadata.ownerReferences[?(@.controller==true)].kind} {.metadata.ownerReferences[?(@.controller==true)].uid}'" \
  "TODO(6): reconcileRuntimeClass creates want, which newRuntimeClass gives the pool as its controller; a RuntimeClass of that name the pool does not control is an error, not the pool's"

step "Change the handler: the API server refuses to change a RuntimeClass's, so it is replaced"
OLD_RC_UID=$(kubectl get runtimeclass "$RUNTIME_CLASS" -o jsonpath='{.metadata.uid}')
run kubectl patch nodepool "$POOL" --type=merge -p '{"spec":{"handler":"kata"}}'
expect "the RuntimeClass has the new handler" "kata" "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.handler}'" \
  "TODO(6): an error 'field is immutable' in the log? delete the RuntimeClass (with a UID precondition) when its handler differs; its delete event brings the pass that creates the new one, with TODO(7)'s Owns"
expect "it is a new RuntimeClass" "new" \
  "[[ \$(kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.metadata.uid}') != $OLD_RC_UID ]] && echo new" \
  "TODO(6): delete the old one, and let the next pass create it"

step "$N1 leaves the pool: it loses exactly what the pool gave it"
run kubectl label node "$N1" "$MEMBER-"
expect "$N1 carries none of the pool's labels" "" "pool_labels $N1" \
  "the node no longer maps to the pool by its label: TODO(4), poolsOfNode, maps it by its record too, and TODO(3), concernsPool, keeps it in the pass"
expect "$N1 carries none of the pool's taints" "" "pool_taints $N1" \
  "TODO(2): setPoolTaints removes the taints the record lists and the pool no longer gives"
expect "$N1 keeps its own labels and taints, and no record" "$OWN1" "own_state $N1" \
  "TODO(1) and TODO(2) remove only what the record lists; other labels and taints are someone else's"
expect "$N0 is still a member" "node-pool.workshop.dev/master=10" "pool_labels $N0"

step "Clean up: $N0 leaves, then delete the pool"
run kubectl label node "$N0" "$MEMBER-"
expect "$N0 carries none of the pool's labels" "" "pool_labels $N0; pool_taints $N0"
expect "$N0 keeps its own labels and taints, and no record" "$OWN0" "own_state $N0"
run kubectl delete nodepool "$POOL" --wait=false
WAIT=90 expect "the garbage collector deleted the RuntimeClass (it followed the OwnerReference)" "" \
  "kubectl get runtimeclass $RUNTIME_CLASS --ignore-not-found -o name" \
  "the garbage collector deletes only a RuntimeClass whose OwnerReference names the pool: TODO(6) creates newRuntimeClass's"
printf '    (Deleting a pool that still has members would leave its labels and taints on them:\n'
printf '    the pool is gone, and with it what it gave. Lesson 06 adds a finalizer for that.)\n'

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
