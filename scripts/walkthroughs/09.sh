# shellcheck shell=bash
# Stage 09: the NodePool operator shipped. Sourced by scripts/run-stage.sh, which has
# installed the CRD and the webhook configurations pointed at this machine, started the
# manager as the administrator and defines ROOT, STAGE_DIR, STAGE_CACHE, METRICS_PORT,
# PROBE_PORT, WEBHOOK_PORT, start_manager, stop_manager and the walkthrough vocabulary.
#
# On the embedded cluster no image runs: kwok simulates the Deployment's pods. The
# manager runs on this machine instead, twice, as the Deployment's service account (a
# token from the TokenRequest API), so that it can do exactly what config/rbac grants.
POOL=workshop-09
source "$ROOT/scripts/lib/nodepool.sh"
NS=nodepool-system
SA=nodepool-controller-manager
KIND=${STAGE_DIR#"$ROOT"/}
KIND=${KIND%%/*}
N=9
LEASE=nodepool.workshop.dev
SA_KUBECONFIG="$STAGE_CACHE/kubeconfig-09-manager"
SCRAPER_BINDING=nodepool-metrics-scraper-09
LOG_A="$STAGE_CACHE/manager-09-a.log"
LOG_B="$STAGE_CACHE/manager-09-b.log"
PID_A=
PID_B=

# The run's cleanup, on any exit: both managers, then the operator (config/default),
# which holds webhook configurations that would refuse every NodePool write without them.
cleanup() {
  local pid
  stop_manager
  for pid in $PID_A $PID_B; do
    if kill -TERM "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null || true; fi
  done
  kubectl delete clusterrolebinding "$SCRAPER_BINDING" --ignore-not-found >/dev/null 2>&1 || true
  "$ROOT/scripts/deploy.sh" undeploy "$KIND" $N >/dev/null 2>&1 || warn "could not undeploy; run scripts/deploy.sh undeploy $KIND $N"
  manager_remove_webhooks "$STAGE_DIR" 2>/dev/null || true
}

# start_as_manager NAME LOG ARGS... starts the stage's manager as the service account.
# NAME (A or B) tells the replicas apart for the reader of the call.
start_as_manager() {
  local out=$2
  shift 2
  KUBECONFIG=$SA_KUBECONFIG "$STAGE_CACHE/manager-09" --leader-elect --leader-election-namespace "$NS" \
    --webhook-cert-dir "$STAGE_CACHE/certs-09" "$@" >"$out" 2>&1 &
  echo $!
}

# holder prints the identity that holds the lease (host name and a random suffix).
holder() { kubectl -n "$NS" get lease "$LEASE" -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
# leads LOG succeeds when the replica that writes LOG has acquired the lease.
leads() { grep -qi 'successfully acquired lease' "$1"; }

# pool_updates prints how many NodeUpdated events the pool's controller has emitted
# about this very pool (series included): one per change applied to a member.
pool_updates() {
  kubectl get events.events.k8s.io -n default -o jsonpath="{range .items[?(@.regarding.uid==\"$POOL_UID\")]}{.reason} {.series.count}{'\n'}{end}" |
    awk '$1 == "NodeUpdated" { n += ($2 == "" ? 1 : $2) } END { print n + 0 }'
}

remove_leftovers nodepool/$POOL runtimeclass/$RUNTIME_CLASS node-label/$MEMBER pool-records/$POOL \
  clusterrolebinding/$SCRAPER_BINDING namespace/$NS \
  validatingwebhookconfiguration/nodepool-validating-webhook-configuration \
  mutatingwebhookconfiguration/nodepool-mutating-webhook-configuration

step "Before: what $N0 carries that is not ours"
OWN0=$(own_state "$N0")
printf '    %s: %s\n' "$N0" "$OWN0"

step "Deploy: the CRD on its own, then config/default, server-side"
stop_manager # from here on, the manager is the service account, not the administrator
run scripts/deploy.sh deploy "$KIND" $N
expect "config/default made the namespace, the service account and two replicas (kwok simulates their pods)" \
  "2/2 $SA" "kubectl -n $NS get deployment $SA -o jsonpath='{.status.readyReplicas}/{.spec.replicas} {.spec.template.spec.serviceAccountName}'" \
  "no Deployment? read the output of scripts/deploy.sh above"
expect "the webhook configurations call the manager on this machine, with the local certificate's CA" \
  "https://127.0.0.1:$WEBHOOK_PORT/validate-nodes-workshop-dev-v1-nodepool CA" \
  "kubectl get validatingwebhookconfiguration nodepool-validating-webhook-configuration -o go-template='{{range .webhooks}}{{.clientConfig.url}}{{if .clientConfig.caBundle}} CA{{end}}{{end}}'"

step "The service account's own kubeconfig: a token from the TokenRequest API"
server=$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.server}')
ca=$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
ca_file=$(kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority}')
[[ -n $ca || -z $ca_file ]] || ca=$(base64 <"$ca_file" | tr -d '\n')
show "kubectl -n $NS create token $SA --duration=2h"
token=$(kubectl -n "$NS" create token "$SA" --duration=2h)
context="$(kubectl config current-context)-$SA"
cat >"$SA_KUBECONFIG" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: workshop
  cluster:
    server: $server
    certificate-authority-data: $ca
users:
- name: $SA
  user:
    token: $token
contexts:
- name: $context
  context: {cluster: workshop, user: $SA}
current-context: $context
KUBECONFIG
chmod 600 "$SA_KUBECONFIG"
AS_SA="kubectl --kubeconfig ${SA_KUBECONFIG#"$ROOT"/}"
expect "it authenticates as the service account" "system:serviceaccount:$NS:$SA" \
  "$AS_SA auth whoami -o jsonpath='{.status.userInfo.username}'"
expect "which may patch nodes and NodePools (config/rbac/role.yaml, from the markers)" "yes yes" \
  'echo $('"$AS_SA"' auth can-i patch nodes 2>/dev/null) $('"$AS_SA"' auth can-i patch nodepools.nodes.workshop.dev 2>/dev/null)'
expect "and nothing more: no deleting nodes, no reading secrets" "no no" \
  'echo $('"$AS_SA"' auth can-i delete nodes 2>/dev/null) $('"$AS_SA"' auth can-i list secrets -A 2>/dev/null)'
expect_refused "a request beyond its role is forbidden, and says who asked for what" \
  "$AS_SA get secrets -n kube-system" \
  "User \"system:serviceaccount:$NS:$SA\" cannot list resource \"secrets\" in API group \"\" in the namespace \"kube-system\""

step "Two managers as the service account, one lease"
# Replica A starts first and leads; B serves the webhooks the configurations call (a
# Service would send them to either replica: webhooks need no leader).
PID_A=$(start_as_manager A "$LOG_A" --webhook-port $((WEBHOOK_PORT + 1)) \
  --metrics-bind-address "127.0.0.1:$METRICS_PORT" --health-probe-bind-address "127.0.0.1:$PROBE_PORT")
show "KUBECONFIG=${SA_KUBECONFIG#"$ROOT"/} $(basename "$STAGE_CACHE")/manager-09 --leader-elect --leader-election-namespace $NS ... &   # A, then B"
expect "replica A holds the lease" "A" 'leads "$LOG_A" && [[ -n $(holder) ]] && echo A' \
  "read ${LOG_A#"$ROOT"/}: a \"forbidden\" there names the permission config/rbac lacks"
HOLDER_A=$(holder)
PID_B=$(start_as_manager B "$LOG_B" --webhook-port "$WEBHOOK_PORT" --metrics-bind-address 0 --health-probe-bind-address 0)
expect "replica B serves the webhooks" "404" \
  "curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:$WEBHOOK_PORT/"
expect "and waits for the lease" "waiting" \
  'grep -qi "attempting to acquire leader lease" "$LOG_B" && ! leads "$LOG_B" && echo waiting'

step "The metrics endpoint: HTTPS, for those the API server says may read it"
expect "without a token, 401" "401" "curl -sk -o /dev/null -w '%{http_code}' https://127.0.0.1:$METRICS_PORT/metrics"
run kubectl -n "$NS" create serviceaccount metrics-scraper
run kubectl create clusterrolebinding "$SCRAPER_BINDING" --clusterrole=nodepool-metrics-reader --serviceaccount="$NS:metrics-scraper"
# shellcheck disable=SC2034 # the curl expect runs reads it: the token stays out of what is shown
scraper=$(kubectl -n "$NS" create token metrics-scraper --duration=10m)
expect "with the token of a service account bound to nodepool-metrics-reader, the metrics" "200" \
  "curl -sk -o /dev/null -w '%{http_code}' -H \"Authorization: Bearer \$scraper\" https://127.0.0.1:$METRICS_PORT/metrics" \
  "403? the manager could not ask the API server: its role needs create on tokenreviews and subjectaccessreviews"

step "The NodePool $POOL, reconciled under the service account's permissions"
write_sample_pool
run kubectl apply -f "$MANIFEST"
POOL_UID=$(kubectl get nodepool "$POOL" -o jsonpath='{.metadata.uid}')
run kubectl label node "$N0" "$MEMBER="
expect "$N0 carries the pool's labels" "node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=2" "pool_labels $N0" \
  "read ${LOG_A#"$ROOT"/}: \"forbidden\" names the RBAC marker the role lacks (shared/TROUBLESHOOTING.md, entry 17)"
expect "and its taint" "node-pool.workshop.dev=master:PreferNoSchedule" "pool_taints $N0"
expect "the RuntimeClass exists and the status counts one node" "runc 1" \
  "echo \$(kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.handler}') \$(kubectl get nodepool $POOL -o jsonpath='{.status.nodeCount}')"
run kubectl patch nodepool "$POOL" --type=merge -p '{"spec":{"labels":{"node-pool.workshop.dev/test":"3"}}}'
expect "a change reaches $N0 once" "node-pool.workshop.dev/test=3 1" \
  'echo $(pool_labels '"$N0"' | tr " " "\n" | grep /test=) $(pool_updates)'

step "Failover: SIGKILL the leader, change the pool, and time B's takeover"
# shellcheck disable=SC2034 # now_ms (scripts/lib/common.sh) reads it
CLOCK=$(tool_path clock) # now_ms, built before the takeover is timed
show "kill -KILL <pid of A>"
killed_at=$(now_ms)
kill -KILL "$PID_A"
wait "$PID_A" 2>/dev/null || true
PID_A=
# A change while nobody leads: B's webhooks admit it, and B must apply it once it leads.
run kubectl patch nodepool "$POOL" --type=merge -p '{"spec":{"labels":{"node-pool.workshop.dev/test":"4"}}}'
took=
# The lease's own timing takes up to about 15 s, even after an earlier failure.
waited=$(wait_seconds)
((waited >= 15)) || waited=15
deadline=$(($(date +%s) + waited))
while (($(date +%s) < deadline)); do
  holder_now=$(holder)
  if [[ -n $holder_now && $holder_now != "$HOLDER_A" ]] && leads "$LOG_B"; then
    took=$(awk -v now="$(now_ms)" -v then="$killed_at" 'BEGIN { printf "%.1f", (now - then) / 1000 }')
    break
  fi
  sleep 0.1
done
if [[ -n $took ]]; then
  pass "replica B took the lease ${took}s after A was killed (LeaseDuration 10s, RetryPeriod 2s with up to 20% jitter: at most about 10s + 2 x 2.4s)"
else
  fail "replica B should take the lease" "it did not within ${waited}s; read ${LOG_B#"$ROOT"/}" "leaderElection in cmd/main.go sets the lease's timing"
fi
expect "the change made while nobody led reached $N0, and each change was applied once" \
  "node-pool.workshop.dev/test=4 2" \
  'echo $(pool_labels '"$N0"' | tr " " "\n" | grep /test=) $(pool_updates)'
expect "the pool's status caught up with its spec" "true" \
  '[[ $(kubectl get nodepool '"$POOL"' -o jsonpath="{.status.observedGeneration}") == $(kubectl get nodepool '"$POOL"' -o jsonpath="{.metadata.generation}") ]] && echo true'

step "Undeploy: the operator goes, the CRD and the NodePool stay"
if kill -TERM "$PID_B"; then wait "$PID_B" 2>/dev/null || true; fi
PID_B=
kubectl delete clusterrolebinding "$SCRAPER_BINDING" --ignore-not-found >/dev/null
run scripts/deploy.sh undeploy "$KIND" $N
expect "the namespace nodepool-system and the webhook configurations are gone" "" \
  "kubectl get namespace $NS --ignore-not-found -o name; kubectl get validatingwebhookconfiguration nodepool-validating-webhook-configuration --ignore-not-found -o name"
expect "the NodePool is still there, and so are its labels on $N0" \
  "nodepool.nodes.workshop.dev/$POOL node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=4" \
  "echo \$(kubectl get nodepool $POOL -o name) \$(pool_labels $N0)"
expect_refused "uninstall says what it would delete, and deletes nothing unasked" \
  "scripts/deploy.sh uninstall $KIND $N </dev/null" \
  "not deleting"
expect "the CRD is still there" "customresourcedefinition.apiextensions.k8s.io/nodepools.nodes.workshop.dev" \
  "kubectl get crd nodepools.nodes.workshop.dev -o name"

step "Clean up: the manager of make lesson-$N runs again, as the administrator, and removes the pool"
# The pool carries the controller's finalizer: a manager must run to let it go. No
# webhook configuration is left to call it.
start_manager
run kubectl delete nodepool "$POOL" --timeout=60s
run kubectl label node "$N0" "$MEMBER-"
expect "$N0 is as it was before the walkthrough" "$OWN0" "own_state $N0"
