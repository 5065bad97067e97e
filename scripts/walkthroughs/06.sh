# Stage 06: a finalizer lets a NodePool go only once its nodes are clean. Sourced by
# scripts/run-stage.sh, which runs the manager and defines STAGE_DIR, start_manager,
# stop_manager, manager_errors and the walkthrough vocabulary.
#
# NodePools and nodes are cluster-wide, and other walkthroughs may run on the same cluster
# at the same time: the pool has a name of its own, its taint is PreferNoSchedule (their
# pods may still land on its nodes), and every label the walkthrough adds is gone at the
# end.
POOL=workshop-06
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
    }' "$log"
}

step "Before: what the nodes carry that is not ours"
clean_pool_leftovers
OWN0=$(own_state $N0)
OWN1=$(own_state $N1)
printf '    %s: %s\n' "$N0" "$OWN0"

step "Create the NodePool $POOL and label two nodes into it"
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
run kubectl apply -f "$MANIFEST"
expect "the pool carries the controller's finalizer" '["nodes.workshop.dev/cleanup"]' \
  "kubectl get nodepool $POOL -o jsonpath='{.metadata.finalizers}'" \
  "add it with a patch in Reconcile, before the pass gives any node anything"
run kubectl label node $N0 $N1 "$MEMBER="
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
expect "the garbage collector deleted the RuntimeClass" "" "kubectl get runtimeclass $RUNTIME_CLASS --ignore-not-found -o name"
expect "the membership labels stay: they are not the pool's to remove" "$N0 $N1" \
  "kubectl get nodes -l $MEMBER -o jsonpath='{.items[*].metadata.name}'"
run kubectl get nodes
printf '    the manager log, trimmed (%s):\n' "${log#"$ROOT"/}"
show_log

step "Clean up: take $N0 and $N1 out of the pool that no longer exists"
run kubectl label node $N0 $N1 "$MEMBER-"
expect "$N0 is as it was before the walkthrough" "$OWN0" "own_state $N0"
expect "$N1 is as it was before the walkthrough" "$OWN1" "own_state $N1"

step "The manager's log"
expect "the manager logged no errors" 0 "manager_errors" "read $log"
expect "no write to the pool after its finalizer was gone (no 'Precondition failed: UID in precondition')" 0 \
  "grep -c 'Precondition failed' $log || true"
