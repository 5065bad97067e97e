# shellcheck shell=bash
# Stage 03: MyDaemonSet, one pod per node. Sourced by scripts/run-stage.sh, which runs the
# manager and defines ROOT, STAGE_DIR, MANAGER_ERRORS and the walkthrough vocabulary.
NS=workshop-03
SELECTOR=apps.workshop.dev/mydaemonset=demo
# shellcheck disable=SC2034 # expect_collected (scripts/lib/walkthrough.sh) reads it
ACTIVE="kubectl get pods -n $NS -l $SELECTOR --no-headers 2>/dev/null | grep -cv Terminating"
# The nodes that run a Running demo pod that is not being deleted, one line per pod: a
# node listed twice would run two pods.
POD_NODES="kubectl get pods -n $NS -l $SELECTOR --no-headers -o custom-columns=NODE:.spec.nodeName,PHASE:.status.phase,DELETING:.metadata.deletionTimestamp | awk '\$2==\"Running\" && \$3==\"<none>\" {print \$1}' | LC_ALL=C sort | xargs"
# DESIRED CURRENT AVAILABLE, as `kubectl get mds` prints them.
COLUMNS="kubectl get mds demo -n $NS --no-headers | awk '{print \$2, \$3, \$4}'"
GENERATIONS="kubectl get mds demo -n $NS -o jsonpath='{.metadata.generation} {.status.observedGeneration}'"
READY_CONDITION="kubectl get mds demo -n $NS -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status} {.status.conditions[?(@.type==\"Ready\")].reason}'"
NEW_IMAGE=registry.k8s.io/pause:3.9

# all_nodes prints the names of the cluster's nodes, sorted, on one line; with an
# argument, every node but that one.
all_nodes() {
  kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' |
    grep -vx "${1:-}" | LC_ALL=C sort | xargs
}

# Adding and removing nodes needs the embedded cluster: kwok makes a node in a second,
# kind would need a new container. scripts/cluster.sh works on the cluster of the
# current context.
context=$(kubectl config current-context)
if [[ $context == kwok-* ]]; then
  export WORKSHOP_CLUSTER=${WORKSHOP_CLUSTER:-${context#kwok-}}
  EMBEDDED=1
else
  EMBEDDED=
fi
# The node the walkthrough cordons, then taints: the second one.
CORDONED=$(all_nodes | awk '{print $2}')
remove_leftovers namespace/$NS node-cordon/"$CORDONED" node-taint/example.com/maintenance
NODES_BEFORE=$(($(kubectl get nodes --no-headers | wc -l)))

step "Create a MyDaemonSet: one pod on every node"
fresh_namespace $NS
run kubectl apply -n $NS -f "$STAGE_DIR/config/samples/apps_v1_mydaemonset.yaml"
expect "every node runs one Running demo pod" "$(all_nodes)" "$POD_NODES" \
  "no pods? read the manager's log; pods Pending? newDaemonPod should set spec.nodeName"
expect "the pods are named after their nodes" "$(all_nodes | sed -E 's/(^| )/\1demo-/g')" \
  "kubectl get pods -n $NS -l $SELECTOR -o jsonpath='{.items[*].metadata.name}' | xargs -n1 | LC_ALL=C sort | xargs" \
  "newDaemonPod should name the pod podName(mds.Name, node.Name)"
expect "every pod is controlled by the MyDaemonSet demo" "MyDaemonSet/demo" \
  "kubectl get pods -n $NS -l $SELECTOR -o jsonpath='{range .items[*]}{.metadata.ownerReferences[?(@.controller==true)].kind}/{.metadata.ownerReferences[?(@.controller==true)].name}{\"\\n\"}{end}' | sort -u" \
  "newDaemonPod should call controllerutil.SetControllerReference"
expect "DESIRED CURRENT AVAILABLE reach $NODES_BEFORE $NODES_BEFORE $NODES_BEFORE, like kubectl get ds" \
  "$NODES_BEFORE $NODES_BEFORE $NODES_BEFORE" "$COLUMNS" \
  "the counts come from planPods, and reconcilePods copies them into the status"
expect "the Ready condition is True" "True AllPodsAvailable" "$READY_CONDITION"
run kubectl get mds -n $NS -o wide
run kubectl get pods -n $NS -l $SELECTOR -o wide

if [[ -n $EMBEDDED ]]; then
  step "Add a node: it gets a pod (the controller watches the nodes)"
  run "$ROOT/scripts/cluster.sh" nodes $((NODES_BEFORE + 1))
  expect "every node runs one Running demo pod, the new one too" "$(all_nodes)" "$POD_NODES" \
    "the new node's event must reach demo: Watches(&corev1.Node{}, ...) and mydaemonsetsForNode"
  N=$((NODES_BEFORE + 1))
  expect "DESIRED CURRENT AVAILABLE reach $N $N $N" "$N $N $N" "$COLUMNS"
else
  step "Adding a node needs the embedded cluster ($context is not one): skipped"
  N=$NODES_BEFORE
fi

step "Cordon $CORDONED: its pod goes"
run kubectl cordon "$CORDONED"
expect "every node but $CORDONED runs a demo pod" "$(all_nodes "$CORDONED")" "$POD_NODES" \
  "nodeMatches should refuse a cordoned node (spec.unschedulable), and nodeChanged should let the cordon through"
expect "DESIRED CURRENT AVAILABLE are $((N - 1)) $((N - 1)) $((N - 1))" "$((N - 1)) $((N - 1)) $((N - 1))" "$COLUMNS"
run kubectl uncordon "$CORDONED"
expect "uncordoned, $CORDONED runs its pod again" "$(all_nodes)" "$POD_NODES"

step "Taint $CORDONED with NoExecute: its pod goes and no new one comes"
run kubectl taint node "$CORDONED" example.com/maintenance=true:NoExecute
expect "every node but $CORDONED runs a demo pod" "$(all_nodes "$CORDONED")" "$POD_NODES" \
  "a pod bound with nodeName skips the scheduler: planPods must check the taints (taintsAllow), and nodeChanged let them through"
expect "DESIRED CURRENT AVAILABLE are $((N - 1)) $((N - 1)) $((N - 1))" "$((N - 1)) $((N - 1)) $((N - 1))" "$COLUMNS"
run kubectl patch mds demo -n $NS --type=merge -p '{"spec":{"tolerations":[{"key":"example.com/maintenance","operator":"Exists"}]}}'
expect "tolerated, $CORDONED runs its pod again" "$(all_nodes)" "$POD_NODES" \
  "spec.tolerations should reach the pods (daemonTolerations) and taintsAllow"
run kubectl taint node "$CORDONED" example.com/maintenance-
run kubectl patch mds demo -n $NS --type=json -p '[{"op":"remove","path":"/spec/tolerations"}]'

step "Change the image: the pods are replaced one node at a time"
run kubectl patch mds demo -n $NS --type=merge -p "{\"spec\":{\"image\":\"$NEW_IMAGE\"}}"
# Look at the pods as often as kubectl allows until every node runs a ready pod of the new
# image, and keep the lowest number of nodes with a ready pod seen on the way.
PODS_STATE="kubectl get pods -n $NS -l $SELECTOR -o jsonpath='{range .items[*]}{.metadata.deletionTimestamp}|{.spec.containers[0].image}|{.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}'"
printf '  $ %s   (repeated)\n' "$PODS_STATE"
lowest=$N
done_at=
waited=$(wait_seconds)
deadline=$(($(date +%s) + waited))
while (($(date +%s) < deadline)); do
  state=$(eval "$PODS_STATE" 2>/dev/null || true)
  ready=$(grep -c '^|.*|True$' <<<"$state" || true)
  updated=$(grep -c "^|$NEW_IMAGE|True\$" <<<"$state" || true)
  ((ready < lowest)) && lowest=$ready
  if ((updated == N && ready == N)); then
    done_at=1
    break
  fi
  sleep 0.1
done
if [[ -n $done_at ]]; then
  pass "every node runs a ready pod of $NEW_IMAGE"
else
  fail "every node should run a ready pod of $NEW_IMAGE" "$updated of $N ($(waited_note "$waited"))" \
    "outdatedPodsToDelete lets one ready pod go while every node has a ready pod; the pod's delete event brings the next pass"
fi
if ((lowest >= N - 1)); then
  pass "on the way, at least $((N - 1)) of $N nodes always had a ready pod (lowest seen: $lowest)"
else
  fail "at most one node should be without a ready pod during the rollout" "$lowest of $N nodes had one at one look" \
    "the rolling budget: a ready pod goes only while no node is without a ready pod"
fi
expect "UP-TO-DATE is $N" "$N" "kubectl get mds demo -n $NS -o jsonpath='{.status.updatedNumberScheduled}'"
GENERATION=$(kubectl get mds demo -n $NS -o jsonpath='{.metadata.generation}')
expect "status.observedGeneration follows the spec change" "$GENERATION $GENERATION" "$GENERATIONS"
expect "the Ready condition is True again" "True AllPodsAvailable" "$READY_CONDITION"
run kubectl get mds -n $NS -o wide
printf '    the manager replaced the pods in %s passes ("Replacing pods that run an old image" in its log)\n' \
  "$(grep -c 'Replacing pods that run an old image' "$MANAGER_LOG" || true)"

if [[ -n $EMBEDDED ]]; then
  step "Remove the node again: its pod goes"
  run "$ROOT/scripts/cluster.sh" nodes "$NODES_BEFORE"
  expect "every remaining node runs one demo pod" "$(all_nodes)" "$POD_NODES"
  expect "DESIRED CURRENT AVAILABLE are back to $NODES_BEFORE $NODES_BEFORE $NODES_BEFORE" \
    "$NODES_BEFORE $NODES_BEFORE $NODES_BEFORE" "$COLUMNS" \
    "a pod whose node is gone should be deleted: planPods removes pods of nodes it does not find"
fi

expect_collected MyDaemonSet mds
expect_clean_log $NS
