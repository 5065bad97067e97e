# shellcheck shell=bash
# What the NodePool walkthroughs (scripts/walkthroughs/05.sh to 09.sh, and 14.sh) share.
# Source it after setting POOL, the walkthrough's own pool name. What an earlier run left
# is removed by remove_leftovers (scripts/lib/walkthrough.sh): nodepool/, pool-records/.

MEMBER=node-role.kubernetes.io/$POOL
# shellcheck disable=SC2034 # for the walkthroughs that source this file
RUNTIME_CLASS=node-pool-$POOL
MANIFEST="$STAGE_CACHE/nodepool-$POOL.yaml"
# Three nodes, workers first: node-000000 to node-000002 on the embedded cluster. echo
# joins the names of both lists, split on purpose, on one line.
# shellcheck disable=SC2034,SC2046 # N2 is for the walkthroughs; node names have no spaces
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

# record_own_state [--show-nodes] starts a walkthrough's first step: what the first two
# nodes carry that is not the pool's, kept in OWN0 and OWN1 to compare with at the end.
record_own_state() {
  step "Before: what the nodes carry that is not ours"
  [[ ${1:-} != --show-nodes ]] || run kubectl get nodes
  OWN0=$(own_state "$N0")
  # shellcheck disable=SC2034 # for the walkthroughs that source this file
  OWN1=$(own_state "$N1")
  printf '    %s: %s\n' "$N0" "$OWN0"
}

# write_pool TAINT LABEL... writes the pool into MANIFEST: its LABELs, each a YAML line
# "key: value", and a PreferNoSchedule taint node-pool.workshop.dev=TAINT (other
# walkthroughs' pods may still land on its nodes).
write_pool() {
  local taint=$1
  shift
  {
    cat <<EOF
apiVersion: nodes.workshop.dev/v1
kind: NodePool
metadata:
  name: $POOL
spec:
  handler: runc
  labels:
EOF
    printf '    %s\n' "$@"
    cat <<EOF
  taints:
  - key: node-pool.workshop.dev
    value: $taint
    effect: PreferNoSchedule
EOF
  } >"$MANIFEST"
}

# write_sample_pool writes the example pool into MANIFEST: two labels and the taint
# node-pool.workshop.dev=master.
write_sample_pool() {
  write_pool master 'node-pool.workshop.dev/master: "8"' 'node-pool.workshop.dev/test: "2"'
}
