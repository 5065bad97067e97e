# What the NodePool walkthroughs (scripts/walkthroughs/05.sh to 09.sh) share. Source it
# after setting POOL, the walkthrough's own pool name.

MEMBER=node-role.kubernetes.io/$POOL
RUNTIME_CLASS=node-pool-$POOL
MANIFEST="$STAGE_CACHE/nodepool-$POOL.yaml"
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
