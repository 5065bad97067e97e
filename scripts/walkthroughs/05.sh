# Stage 05: NodePool gives its nodes labels and taints, and owns a RuntimeClass. Sourced by
# scripts/run-stage.sh, which runs the manager and defines STAGE_DIR, manager_errors and
# the walkthrough vocabulary.
#
# NodePools and nodes are cluster-wide, and other walkthroughs may run on the same cluster
# at the same time: the pool has a name of its own, its taint is PreferNoSchedule (their
# pods may still land on its nodes), and every label the walkthrough adds is gone at the
# end.
POOL=workshop-05
MEMBER=node-role.kubernetes.io/$POOL
RUNTIME_CLASS=node-pool-$POOL
MANIFEST="$CACHE/stage/nodepool-$POOL.yaml"
# Three nodes, workers first: node-000000 to node-000002 on the embedded cluster.
read -r N0 N1 N2 < <(echo $(kubectl get nodes -l '!node-role.kubernetes.io/control-plane' -o jsonpath='{.items[*].metadata.name}') \
  $(kubectl get nodes -l node-role.kubernetes.io/control-plane -o jsonpath='{.items[*].metadata.name}'))

# pool_labels NODE prints the node's node-pool.workshop.dev/ labels, sorted, on one line.
pool_labels() {
  kubectl get node "$1" -o go-template='{{range $k, $v := .metadata.labels}}{{$k}}={{$v}}{{"\n"}}{{end}}' |
    { grep '^node-pool\.workshop\.dev/' || true; } | paste -sd' ' -
}

# pool_taints NODE prints the node's node-pool.workshop.dev taints as key=value:effect.
pool_taints() {
  kubectl get node "$1" -o go-template='{{range .spec.taints}}{{.key}}={{.value}}:{{.effect}}{{"\n"}}{{end}}' |
    { grep '^node-pool\.workshop\.dev' || true; } | paste -sd' ' -
}

# own_state NODE prints what NODE carries that is not the pool's: its other labels and
# taints, and any record of this pool (there should be none outside the pool).
own_state() {
  kubectl get node "$1" -o go-template='{{range $k, $v := .metadata.labels}}{{$k}}={{$v}}{{"\n"}}{{end}}{{range .spec.taints}}taint {{.key}}={{.value}}:{{.effect}}{{"\n"}}{{end}}{{range $k, $v := .metadata.annotations}}annotation {{$k}}{{"\n"}}{{end}}' |
    awk -v member="$MEMBER=" -v record="annotation applied.nodes.workshop.dev/$POOL" '
      index($0, "node-pool.workshop.dev") == 1 || index($0, "taint node-pool.workshop.dev") == 1 { next }
      index($0, member) == 1 { next }
      index($0, "annotation ") == 1 && $0 != record { next }
      { print }' | paste -sd' ' -
}

# clean_pool_leftovers removes what an interrupted earlier run may have left: members,
# the pool, and on the nodes that still carry its record (a pool deleted while it had
# members), the labels and taint this walkthrough's pool gives.
clean_pool_leftovers() {
  kubectl label node --all "$MEMBER-" >/dev/null 2>&1 || true
  if kubectl get nodepool "$POOL" >/dev/null 2>&1; then
    sleep 2 # the running manager takes back what the pool gave the nodes that left
    kubectl delete nodepool "$POOL" --wait=true --timeout=60s >/dev/null
  fi
  local node
  for node in $(kubectl get nodes -o go-template='{{range $n := .items}}{{with $n.metadata.annotations}}{{if index . "applied.nodes.workshop.dev/'"$POOL"'"}}{{$n.metadata.name}}{{"\n"}}{{end}}{{end}}{{end}}' 2>/dev/null); do
    kubectl label node "$node" node-pool.workshop.dev/master- node-pool.workshop.dev/test- >/dev/null 2>&1 || true
    kubectl taint node "$node" node-pool.workshop.dev:PreferNoSchedule- >/dev/null 2>&1 || true
    kubectl annotate node "$node" "applied.nodes.workshop.dev/$POOL-" >/dev/null 2>&1 || true
  done
}

step "Before: what the nodes carry that is not ours"
clean_pool_leftovers
run kubectl get nodes
OWN0=$(own_state $N0)
OWN1=$(own_state $N1)
printf '    %s: %s\n' "$N0" "$OWN0"

step "Create the NodePool $POOL: the seed's labels and taint"
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

step "Update the labels, as the seed did: master 8 -> 10, test removed"
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
expect "the manager logged no errors" 0 "manager_errors" "read $log"
