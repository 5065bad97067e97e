# shellcheck shell=bash
# Stage 08: NodePool's admission webhooks. Sourced by scripts/run-stage.sh, which has
# installed the webhook configurations pointed at the manager on this machine, runs the
# manager and defines ROOT, CACHE, STAGE_DIR, MANAGER_HOST, WEBHOOK_PORT, PROBE_PORT,
# MANAGER_LOG, manager_errors and the walkthrough vocabulary.
#
# NodePools and nodes are cluster-wide, and other walkthroughs may run on the same cluster
# at the same time: the pools have names of their own, the member's taint is
# PreferNoSchedule (their pods may still land on it), the NoExecute taint is only tried
# with --dry-run=server, and every label the walkthrough adds is gone at the end.
POOL=workshop-08
DEFAULTS_POOL=workshop-08-defaults
SAMPLES=$STAGE_DIR/config/samples
MANIFESTS="$STAGE_CACHE/nodepools-08"
# shellcheck disable=SC2034 # read by the single-quoted commands that expect runs below
GENERATION="kubectl get nodepool $POOL -o jsonpath='{.metadata.generation}'"
# MEMBER, RUNTIME_CLASS, the first worker N0, pool_labels, pool_taints and own_state.
source "$ROOT/scripts/lib/nodepool.sh"

# manifest NAME SPEC writes a NodePool named NAME with the YAML SPEC (indented by two)
# to $MANIFESTS/NAME.yaml.
manifest() {
  printf 'apiVersion: nodes.workshop.dev/v1\nkind: NodePool\nmetadata:\n  name: %s\nspec:\n%s\n' "$1" "$2" >"$MANIFESTS/$1.yaml"
}

# expect_pool_refused WHAT NAME SPEC MESSAGE [HINT] writes the NodePool NAME with SPEC, as
# manifest does, and expects the API server to refuse it, saying MESSAGE.
expect_pool_refused() {
  manifest "$2" "$3"
  expect_refused "$1" "kubectl apply -f '$MANIFESTS/$2.yaml'" "$4" "${5:-}"
}

mkdir -p "$MANIFESTS"
# The bad pools are refused, unless the webhooks of a broken run let them through.
remove_leftovers nodepool/$POOL nodepool/$DEFAULTS_POOL nodepool/nodepool-bad nodepool/$POOL-reserved \
  nodepool/$POOL-bad-key nodepool/$POOL-duplicate nodepool/$POOL-bad-effect \
  runtimeclass/$RUNTIME_CLASS runtimeclass/node-pool-$DEFAULTS_POOL node-label/$MEMBER pool-records/$POOL

step "The API server calls the manager's NodePool webhooks"
run kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations
# envtest, which installed them, joins the URL and the path with a double slash; the
# API server's client joins them again with path.Join, which drops it.
expect "the NodePool validating webhook calls the manager on this machine, over TLS" \
  "https://$MANAGER_HOST:$WEBHOOK_PORT validate-nodes-workshop-dev-v1-nodepool" \
  "kubectl get validatingwebhookconfiguration validating-webhook-configuration -o jsonpath='{.webhooks[?(@.name==\"vnodepool-v1.kb.io\")].clientConfig.url}' | sed -E 's#^(https://[^/]*)/+#\\1 #'" \
  "no webhook? the +kubebuilder:webhook markers generate config/webhook/manifests.yaml"
expect "the manager is ready only once its webhook server answers" "[+]webhook ok" \
  "curl -s 'http://127.0.0.1:$PROBE_PORT/readyz?verbose' | grep -F webhook" \
  "cmd/main.go should keep the ready check \"webhook\": mgr.GetWebhookServer().StartedChecker()"

step "Before: what $N0 carries that is not ours"
OWN0=$(own_state "$N0")
printf '    %s: %s\n' "$N0" "$OWN0"

step "Defaults: an empty handler and a taint without an effect"
manifest "$DEFAULTS_POOL" '  handler: ""
  labels:
    node-pool.workshop.dev/defaults: "true"
  taints:
  - key: node-pool.workshop.dev/defaults
    value: "true"'
run cat "$MANIFESTS/$DEFAULTS_POOL.yaml"
run kubectl apply -f "$MANIFESTS/$DEFAULTS_POOL.yaml"
expect "the stored pool has the handler runc and the effect NoSchedule" "runc NoSchedule" \
  "kubectl get nodepool $DEFAULTS_POOL -o jsonpath='{.spec.handler} {.spec.taints[0].effect}'" \
  "Default should set an empty handler to DefaultHandler and an empty effect to NoSchedule"
run kubectl delete nodepool "$DEFAULTS_POOL" --timeout=60s

step "Create the NodePool $POOL, as in lesson 07, and label $N0 into it"
manifest "$POOL" '  labels:
    node-pool.workshop.dev/master: "8"
    node-pool.workshop.dev/test: "2"
  taints:
  - key: node-pool.workshop.dev
    value: master
    effect: PreferNoSchedule'
run kubectl apply -f "$MANIFESTS/$POOL.yaml"
expect "the pool wrote no handler and got runc (the schema's default)" "runc" \
  "kubectl get nodepool $POOL -o jsonpath='{.spec.handler}'"
run kubectl label node "$N0" "$MEMBER="
expect "$N0 carries the pool's labels" "node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=2" "pool_labels $N0" \
  "nothing? the controller still runs beside the webhooks: read the manager's log"
expect "$N0 carries the pool's taint" "node-pool.workshop.dev=master:PreferNoSchedule" "pool_taints $N0"
expect "the RuntimeClass $RUNTIME_CLASS has the handler runc and the pool's labels as node selector" \
  'runc {"node-pool.workshop.dev/master":"8","node-pool.workshop.dev/test":"2"}' \
  "kubectl get runtimeclass $RUNTIME_CLASS -o jsonpath='{.handler} {.scheduling.nodeSelector}'"
run kubectl get nodepool "$POOL"

step "Bad NodePools are refused, every problem with its field"
# kubectl prints the causes of an Invalid answer, one per line, whoever refused: the
# CRD's schema and CEL rules first, then the validating webhook.
expect_refused "the validating webhook refuses a label under kubernetes.io/, with its field" \
  "kubectl apply -f '$SAMPLES/bad_nodepool.yaml'" \
  '* spec.labels[kubernetes.io/hostname]: Forbidden: the prefix kubernetes.io/ is reserved for Kubernetes' \
  "validateLabels should refuse a key under a reserved prefix with field.Forbidden at path.Key(key), and validateNodePool return every error in one apierrors.NewInvalid"
expect "the same answer names the label value with a space" \
  '* spec.labels[node-pool.workshop.dev/tier]: Invalid value: "gold plated"' \
  "kubectl apply -f '$SAMPLES/bad_nodepool.yaml' 2>&1 | grep -oF '* spec.labels[node-pool.workshop.dev/tier]: Invalid value: \"gold plated\"'" \
  "validateLabels should add a field.Invalid for each message of content.IsLabelValue"
expect "and the taint key with a space" \
  '* spec.taints[0].key: Invalid value: "dedicated pool"' \
  "kubectl apply -f '$SAMPLES/bad_nodepool.yaml' 2>&1 | grep -oF '* spec.taints[0].key: Invalid value: \"dedicated pool\"'" \
  "validateTaints should add a field.Invalid at .Child(\"key\") for each message of content.IsLabelKey"

expect_pool_refused "a label under a subdomain of kubernetes.io is refused by the webhook" \
  "$POOL-reserved" '  labels:
    node.kubernetes.io/instance-type: big' \
  'spec.labels[node.kubernetes.io/instance-type]: Forbidden: the prefix node.kubernetes.io/ is reserved for Kubernetes' \
  "reservedPrefix should report every subdomain of kubernetes.io"
expect_pool_refused "a malformed label key is refused by the CRD's CEL rule, before any webhook" \
  "$POOL-bad-key" '  labels:
    node pool/tier: gold' \
  "spec.labels: Invalid value: every key must be a label key"
# Labels every check accepts: the next two pools are refused for their taints alone.
VALID_LABELS='  labels:
    node-pool.workshop.dev/tier: gold'
expect_pool_refused "the same taint key and effect twice is refused by the schema (+listMapKey)" \
  "$POOL-duplicate" "$VALID_LABELS"'
  taints:
  - key: node-pool.workshop.dev
    value: a
    effect: NoSchedule
  - key: node-pool.workshop.dev
    value: b
    effect: NoSchedule' \
  'spec.taints[1]: Duplicate value: {"effect":"NoSchedule","key":"node-pool.workshop.dev"}'
expect_pool_refused "an unknown effect is refused by the CRD's CEL rule" \
  "$POOL-bad-effect" "$VALID_LABELS"'
  taints:
  - key: node-pool.workshop.dev
    effect: NoScheduling' \
  "spec.taints: Invalid value: every effect must be NoSchedule, PreferNoSchedule or NoExecute"
expect "nothing was stored" "" \
  "kubectl get nodepool nodepool-bad $POOL-reserved $POOL-bad-key $POOL-duplicate $POOL-bad-effect --ignore-not-found -o name"

step "Updates are validated too"
# In lesson 07 this very patch was stored, and every pass failed on every member.
expect_refused "an update to a label value no node accepts is refused, before any node sees it" \
  "kubectl patch nodepool $POOL --type=merge -p '{\"spec\":{\"labels\":{\"node-pool.workshop.dev/test\":\"not valid!\"}}}'" \
  'spec.labels[node-pool.workshop.dev/test]: Invalid value: "not valid!"' \
  "ValidateUpdate should check a changed spec as ValidateCreate does"
expect_refused "an update to a label under kubernetes.io/ is refused" \
  "kubectl patch nodepool $POOL --type=merge -p '{\"spec\":{\"labels\":{\"kubernetes.io/hostname\":\"pool\"}}}'" \
  "spec.labels[kubernetes.io/hostname]: Forbidden"
expect "$POOL is unchanged: same generation, same labels on $N0" \
  "1 node-pool.workshop.dev/master=8 node-pool.workshop.dev/test=2" 'echo $(eval "$GENERATION") $(pool_labels $N0)'

step "A NoExecute taint is admitted, with a warning (tried with --dry-run=server)"
# A server dry run goes through both webhooks (sideEffects=None) and stores nothing:
# no pod on $N0 is evicted.
expect_warned "kubectl printed the webhook's warning, and the patch was admitted" \
  "kubectl patch nodepool $POOL --type=merge --dry-run=server -p '{\"spec\":{\"taints\":[{\"key\":\"node-pool.workshop.dev\",\"value\":\"master\",\"effect\":\"NoExecute\"}]}}'" \
  "spec.taints[0]: the NoExecute taint node-pool.workshop.dev=master:NoExecute evicts" "nodepool.nodes.workshop.dev/$POOL patched" \
  "warningsFor should warn about every NoExecute taint, and validateNodePool return the warnings"
expect "nothing was stored: the taint is still PreferNoSchedule" "1 node-pool.workshop.dev=master:PreferNoSchedule" \
  'echo $(eval "$GENERATION") $(pool_taints $N0)'

step "Delete the pool: the controller's finalizer patch goes through the webhooks"
run kubectl delete nodepool "$POOL" --timeout=60s
expect "$N0 carries none of the pool's labels and taints" "" "pool_labels $N0; pool_taints $N0" \
  "the pool is stuck? ValidateUpdate must admit an update that leaves the spec alone"
WAIT=90 expect "the garbage collector deleted the RuntimeClass" "" "kubectl get runtimeclass $RUNTIME_CLASS --ignore-not-found -o name"
expect "the pool is gone" "" "kubectl get nodepool $POOL --ignore-not-found -o name"

step "Clean up: take $N0 out of the pool that no longer exists"
run kubectl label node "$N0" "$MEMBER-"
expect "$N0 is as it was before the walkthrough" "$OWN0" "own_state $N0"

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
