# shellcheck shell=bash
# Stage 10: SidecarSet, sidecars injected into new pods by a mutating webhook. Sourced by
# scripts/run-stage.sh, which has installed the webhook configurations pointed at the
# manager on this machine and defines ROOT, STAGE_DIR, MANAGER_HOST, WEBHOOK_PORT, PROBE_PORT,
# METRICS_PORT, MANAGER_LOG, start_manager, stop_manager, MANAGER_ERRORS and the walkthrough vocabulary.
#
# SidecarSets are cluster-wide: the walkthrough deletes the two of its samples first, and
# its pods live in namespaces of its own.
#
# Each hint names the task of lessons/10-sidecarset (TODO(k), lessons/index.json) whose
# absence explains the failure; where several could, the first one to check.
NS=workshop-10
OTHER=workshop-10-other
SAMPLES=$STAGE_DIR/config/samples
CONFIG=mutating-webhook-configuration
# The ClusterRole of config/rbac/metrics_reader_role.yaml, under the name config/default
# gives it, and the binding that lets a scraper read the metrics.
READER=sidecarset-metrics-reader
SCRAPER_BINDING=sidecarset-metrics-scraper-10

# containers NS NAME prints the names of a pod's containers, then of its init containers
# (where the sidecars are), on one line.
containers() {
  kubectl get pod -n "$1" "$2" -o jsonpath='{.spec.containers[*].name} {.spec.initContainers[*].name}' | xargs
}

# web_pods prints, for each Running pod of the Deployment web, its containers and init
# containers, one pod a line, sorted and counted: "3 web log-shipper" when all three have
# the sidecar.
web_pods() {
  kubectl get pods -n $NS -l app=web --field-selector=status.phase=Running \
    -o jsonpath='{range .items[*]}{.spec.containers[*].name} {.spec.initContainers[*].name}{"\n"}{end}' |
    sed 's/ *$//' | sort | uniq -c | sed 's/^ *//'
}

# policy prints the pod webhook's failure policy and timeout.
policy() {
  kubectl get mutatingwebhookconfiguration $CONFIG -o jsonpath='{.webhooks[0].failurePolicy} {.webhooks[0].timeoutSeconds}'
}

# set_policy POLICY changes the failure policy of the installed pod webhook.
set_policy() {
  run kubectl patch mutatingwebhookconfiguration $CONFIG --type=json \
    -p "[{\"op\":\"replace\",\"path\":\"/webhooks/0/failurePolicy\",\"value\":\"$1\"}]"
}

# The bad SidecarSet is refused, unless the webhook of a broken run let it through.
remove_leftovers sidecarset/logging sidecarset/metrics sidecarset/bad namespace/$NS namespace/$OTHER \
  pod/kube-system/workshop-10 pod/kube-system/still-works clusterrolebinding/$SCRAPER_BINDING clusterrole/$READER
# The manager's namespace, where config/default runs it: its SidecarSet webhook dry-runs
# pods there (a manager on this machine takes sidecarset-system, its --manager-namespace).
kubectl get namespace sidecarset-system >/dev/null 2>&1 || kubectl create namespace sidecarset-system >/dev/null

step "The API server calls the manager for every new pod, but not in every namespace"
run kubectl get mutatingwebhookconfiguration $CONFIG -o jsonpath='{.webhooks[0].namespaceSelector}{"\n"}'
expect "the manager is ready only once its webhook server answers and its cache has synced" "[+]cache ok [+]webhook ok" \
  "curl -s 'http://127.0.0.1:$PROBE_PORT/readyz?verbose' | grep -E 'webhook|cache' | xargs" \
  "TODO(1): cmd/main.go registers both webhooks and adds the ready checks \"webhook\" and \"cache\"; without them the API server's calls find no webhook"
expect "the pod webhook leaves out kube-system and the manager's own namespace" \
  "kube-system sidecarset-system" \
  "kubectl get mutatingwebhookconfiguration $CONFIG -o jsonpath='{.webhooks[0].namespaceSelector.matchExpressions[0].values[*]}'" \
  "TODO(6): the pod webhook's marker needs patch=\`{\"namespaceSelector\":...}\` with kubernetes.io/metadata.name NotIn the excluded namespaces"
expect "it fails open (Ignore) and waits 5 seconds at most" "Ignore 5" "policy" \
  "the pod webhook's marker, given, says failurePolicy=ignore,timeoutSeconds=5: keep them when you add TODO(6)'s patch"

step "A bad SidecarSet is refused, every problem with its field"
expect_refused "the bad sample is refused" "kubectl apply -f '$SAMPLES/bad_sidecarset.yaml'" \
  'spec.selector.matchExpressions[0].operator: Invalid value: "Like"' \
  "TODO(7): validateSelector returns metav1validation.ValidateLabelSelector's errors (refused with 'failed calling webhook'? the webhook is not served: TODO(1))"
expect "the same answer names the duplicate sidecar and the reserved volume" \
  "* spec.volumes[0].name: Forbidden * spec.containers[1].name: Duplicate value" \
  "kubectl apply -f '$SAMPLES/bad_sidecarset.yaml' 2>&1 | grep -oE '^\\* spec\\.(volumes\\[0\\]\\.name: Forbidden|containers\\[1\\]\\.name: Duplicate value)' | xargs" \
  "no Duplicate? TODO(8), validateContainers; no Forbidden? TODO(10): a volume name with the prefix the API server gives its own volumes is reserved"

step "A sidecar no pod could run is refused, in the API server's own words"
cat >"$STAGE_CACHE/pod-rules-10.yaml" <<EOF
apiVersion: sidecars.workshop.dev/v1
kind: SidecarSet
metadata:
  name: pod-rules
spec:
  selector:
    matchLabels:
      logging: enabled
  containers:
  - name: log-shipper
    image: busybox:1.37
    imagePullPolicy: always
    resources:
      requests: {cpu: "2"}
      limits: {cpu: "1"}
EOF
printf '  (pod-rules-10.yaml: a sidecar with imagePullPolicy: always, and requests above its limits)\n'
expect_refused "a dry run of a pod with the sidecar finds the pull policy, at the SidecarSet's field" \
  "kubectl apply -f '$STAGE_CACHE/pod-rules-10.yaml'" \
  'spec.containers[0].imagePullPolicy: Unsupported value: "always"' \
  "the SidecarSet webhook has the API server validate a pod with the sidecars (dryRunErrors): is the namespace sidecarset-system there?"
expect "the same answer names the requests" "* spec.containers[0].resources.requests: Invalid value" \
  "kubectl apply -f '$STAGE_CACHE/pod-rules-10.yaml' 2>&1 | grep -oE '^\* spec\.containers\[0\]\.resources\.requests: Invalid value'"

step "The SidecarSet logging: a log shipper next to every pod labelled logging=enabled"
run kubectl apply -f "$SAMPLES/sidecars_v1_sidecarset.yaml"
run kubectl get sidecarsets

step "A Deployment's pods get the sidecar, and reach Running"
fresh_namespace $NS
run kubectl apply -n $NS -f "$SAMPLES/web_deployment.yaml"
expect "three Running pods, each with the container web and the sidecar log-shipper" "3 web log-shipper" "web_pods" \
  "no sidecar? in task order: TODO(2), Selects, picks the pod; TODO(3), injectSet, adds a SidecarSet's sidecars; TODO(4), Inject, adds each SidecarSet's; TODO(5), Handle, answers with the patch. The manager's log says what it did"
POD=$(kubectl get pods -n $NS -l app=web -o jsonpath='{.items[0].metadata.name}')
expect "the sidecar is a native sidecar: an init container that restarts Always" "log-shipper Always" \
  "kubectl get pod -n $NS $POD -o jsonpath='{.spec.initContainers[0].name} {.spec.initContainers[0].restartPolicy}'" \
  "injectSet should append asSidecar(c) to the pod's init containers"
run kubectl get pod -n $NS "$POD" -o jsonpath='{.spec.volumes[*].name}{"\n"}{.metadata.annotations.sidecars\.workshop\.dev/injected}{"\n"}'
expect "the pod has the volume app-logs, and records what it got" "app-logs logging" \
  "echo \$(kubectl get pod -n $NS $POD -o jsonpath='{.spec.volumes[*].name}' | grep -o app-logs) \$(kubectl get pod -n $NS $POD -o jsonpath='{.metadata.annotations.sidecars\\.workshop\\.dev/injected}' | grep -o '\"logging\"' | tr -d '\"')" \
  "no app-logs? TODO(3): injectSet adds the volumes a sidecar needs; no logging? TODO(4): Inject records the SidecarSets that added a sidecar"

step "Pods the SidecarSet does not select, and pods in kube-system, are untouched"
run kubectl run plain -n $NS --image=registry.k8s.io/pause:3.10
expect "a pod without the label keeps its one container" "plain" "containers $NS plain" \
  "TODO(2): Selects checks spec.selector against the pod's labels"
run kubectl run workshop-10 -n kube-system --image=registry.k8s.io/pause:3.10 --labels=logging=enabled
expect "a pod labelled logging=enabled in kube-system gets no sidecar: the API server never calls the webhook there" \
  "workshop-10" "containers kube-system workshop-10" \
  "TODO(6): the namespaceSelector of the pod webhook's marker"
kubectl delete pod -n kube-system workshop-10 --wait=false >/dev/null

step "Two SidecarSets on one pod; the second one's namespaceSelector wants team=web"
run kubectl apply -f "$SAMPLES/metrics_sidecarset.yaml"
run kubectl label namespace $NS team=web
sleep 1 # the manager's cache hears of the new label
run kubectl run both -n $NS --image=registry.k8s.io/pause:3.10 --labels=logging=enabled,metrics=enabled
expect "both sidecars, in the order of the SidecarSets' names" "both log-shipper metrics-agent" "containers $NS both" \
  "no metrics-agent? TODO(2): Selects checks spec.namespaceSelector against the namespace's labels; the wrong order? TODO(4): Inject adds them in the order it gets them (selecting sorts them by name)"
fresh_namespace $OTHER
run kubectl run both -n $OTHER --image=registry.k8s.io/pause:3.10 --labels=logging=enabled,metrics=enabled
expect "in a namespace without team=web, only the log shipper" "both log-shipper" "containers $OTHER both" \
  "TODO(2): Selects checks spec.namespaceSelector, when it is set, against the namespace's labels"

step "A name the pod has already: that sidecar is left out, the pod is created, with a warning"
cat >"$STAGE_CACHE/clash-10.yaml" <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: clash
  labels:
    logging: enabled
spec:
  containers:
  - name: log-shipper
    image: registry.k8s.io/pause:3.10
EOF
printf '  $ kubectl apply -n %s -f clash.yaml   # a pod with its own container log-shipper\n' "$NS"
out=$(kubectl apply -n $NS -f "$STAGE_CACHE/clash-10.yaml" 2>&1) || true
printf '%s\n' "$out" | sed 's/^/    /'
# The warning's words after the SidecarSet are the learner's (task 3): it names the sidecar.
if [[ $out == *'Warning: SidecarSet logging: '*log-shipper* && $out == *"pod/clash created"* ]]; then
  pass "kubectl printed the webhook's warning, and the pod was created"
else
  fail "kubectl should print the webhook's warning and create the pod" "got: $out" \
    "TODO(3): injectSet skips a sidecar whose name the pod has, with a warning (warn); TODO(5): Handle returns the warnings"
fi
expect "the pod keeps its own container, alone" "log-shipper" "containers $NS clash" \
  "TODO(3): injectSet adds no sidecar of a name the pod has"

step "A pod admitted again is not injected twice"
printf '  $ kubectl get pod -n %s both -o yaml | <rename it, drop uid and resourceVersion> | kubectl create -f -\n' "$NS"
out=$(kubectl get pod -n $NS both -o yaml |
  sed -E '/^  (resourceVersion|uid|creationTimestamp):/d; s/^  name: both$/  name: both-copy/' |
  kubectl create -f - 2>&1) || true
printf '%s\n' "$out" | sed 's/^/    /'
expect "the copy has each sidecar once, and no warning was printed" "both log-shipper metrics-agent 0" \
  "echo \$(containers $NS both-copy) $(grep -c Warning <<<"$out")" \
  "TODO(4): Inject skips, silently, the SidecarSets the pod's record (sidecars.Injected) lists already"

step "Never block the cluster: the manager down, with failurePolicy Ignore"
stop_manager
printf '  (the manager is stopped)\n'
# shellcheck disable=SC2034 # now_ms (scripts/lib/common.sh) reads it
CLOCK=$(tool_path clock) # now_ms, built before the creation is timed
started=$(now_ms)
run kubectl run while-down -n $NS --image=registry.k8s.io/pause:3.10 --labels=logging=enabled
took=$(($(now_ms) - started))
printf '    (created in %d ms: the call to the manager was refused at once, and Ignore let the pod through)\n' "$took"
expect "the pod is created, without its sidecar" "while-down" "containers $NS while-down"

step "The same, with failurePolicy Fail"
set_policy Fail
expect_refused "a pod the SidecarSet would select is refused" \
  "kubectl run refused -n $NS --image=registry.k8s.io/pause:3.10 --labels=logging=enabled" \
  'failed calling webhook "msidecarset-pod-v1.kb.io"'
expect_refused "so is any pod of any namespace the webhook sees, selected or not" \
  "kubectl run refused-too -n $OTHER --image=registry.k8s.io/pause:3.10" \
  'failed calling webhook "msidecarset-pod-v1.kb.io"'
run kubectl scale deployment web -n $NS --replicas=4
expect "the Deployment cannot get its fourth pod: its ReplicaSet's creations are refused" "FailedCreate" \
  "kubectl get events -n $NS --field-selector reason=FailedCreate -o jsonpath='{.items[0].reason}'"
run kubectl run still-works -n kube-system --image=registry.k8s.io/pause:3.10
expect "kube-system is left out of the webhook: its pods are created even now" "still-works" \
  "containers kube-system still-works" "TODO(6): the namespaceSelector of the pod webhook's marker"
kubectl delete pod -n kube-system still-works --wait=false >/dev/null

step "The manager back, then Ignore again"
# In this order: with Ignore first, the ReplicaSet's next try could come before the
# manager answers, and its pod would go through without the sidecar.
start_manager
set_policy Ignore
expect "the Deployment's fourth pod is created, with the sidecar" "4 web log-shipper" "web_pods" \
  "the ReplicaSet retries with a backoff; a pod without the sidecar? TODO(5): Handle"

step "The metrics endpoint: HTTPS, for those the API server says may read it"
expect_metrics_only_for_readers "$NS" "$READER" "$SCRAPER_BINDING"

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
kubectl delete sidecarset metrics >/dev/null
# The namespace controller removes the namespaces and their pods in the background; the
# next run of this walkthrough waits for that before it starts.
kubectl delete namespace $NS $OTHER --wait=false >/dev/null
