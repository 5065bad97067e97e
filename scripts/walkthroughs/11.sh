# shellcheck shell=bash
# Stage 11: SidecarSet reports what it selects and what runs its sidecars. Sourced by
# scripts/run-stage.sh, which has installed the webhook configurations pointed at the
# manager on this machine and defines ROOT, STAGE_DIR, METRICS_PORT, MANAGER_LOG, MANAGER_ERRORS
# and the walkthrough vocabulary.
#
# SidecarSets are cluster-wide: the walkthrough deletes its sample's first, and its pods
# live in a namespace of its own.
NS=workshop-11
SAMPLES=$STAGE_DIR/config/samples

# columns prints the MATCHED INJECTED OUTDATED columns of `kubectl get sidecarset logging`.
columns() { kubectl get sidecarset logging --no-headers | awk '{print $2, $3, $4}'; }

# conditions prints the status and reason of the conditions Injected and UpToDate.
conditions() {
  kubectl get sidecarset logging -o jsonpath='{range .status.conditions[*]}{.type}={.status}/{.reason}{" "}{end}' | xargs
}

# set_events prints the reasons of the events about this very SidecarSet (SET_UID: events
# outlive the objects they are about), each with "xN" when it was emitted N > 1 times.
set_events() {
  kubectl get events.events.k8s.io -n default -o jsonpath="{range .items[?(@.regarding.uid==\"$SET_UID\")]}{.reason}{' x'}{.series.count}{'\n'}{end}" |
    sed 's/ x$//' | sort | paste -sd' ' -
}

# sidecar_images prints the image of the sidecar (the first init container) of each
# Running web pod, counted.
sidecar_images() {
  kubectl get pods -n $NS -l app=web --field-selector=status.phase=Running \
    -o jsonpath='{range .items[*]}{.spec.initContainers[0].image}{"\n"}{end}' |
    sort | uniq -c | sed 's/^ *//' | paste -sd' ' -
}

remove_leftovers sidecarset/logging sidecarset/metrics namespace/$NS
# The manager's namespace, where config/default runs it: its SidecarSet webhook dry-runs
# pods there (a manager on this machine takes sidecarset-system, its --manager-namespace).
kubectl get namespace sidecarset-system >/dev/null 2>&1 || kubectl create namespace sidecarset-system >/dev/null

step "Pods created before the SidecarSet: matched, not injected"
fresh_namespace $NS
run kubectl apply -n $NS -f "$SAMPLES/web_deployment.yaml"
run kubectl rollout status deployment web -n $NS --timeout=60s
run kubectl apply -f "$SAMPLES/sidecars_v1_sidecarset.yaml"
SET_UID=$(kubectl get sidecarset logging -o jsonpath='{.metadata.uid}')
expect "MATCHED INJECTED OUTDATED say 3 0 0" "3 0 0" "columns" \
  "empty columns? the printcolumn markers and the status subresource; 0 0 0? countPod, and the pod watch"
run kubectl get sidecarsets
expect "Injected is False: PodsNotInjected" "Injected=False/PodsNotInjected UpToDate=True/AllPodsUpToDate" "conditions" \
  "setConditions sets both from the counts"
run kubectl get sidecarset logging -o jsonpath='{.status.conditions[?(@.type=="Injected")].message}{"\n"}'
expect "one event says so" "PodsNotInjected" "set_events" "tellChanges emits it when Injected turns False"

step "Recreated, the pods get the sidecar"
run kubectl rollout restart deployment web -n $NS
run kubectl rollout status deployment web -n $NS --timeout=60s
expect "MATCHED INJECTED OUTDATED say 3 3 0" "3 3 0" "columns" \
  "the controller must hear of new and deleted pods: the pod watch and its map function"
expect "Injected is True: AllPodsInjected" "Injected=True/AllPodsInjected UpToDate=True/AllPodsUpToDate" "conditions"

step "A change of the SidecarSet reaches no running pod; the status counts them"
run kubectl patch sidecarset logging --type=json -p '[{"op":"replace","path":"/spec/containers/0/image","value":"busybox:1.38"}]'
expect "MATCHED INJECTED OUTDATED say 3 3 3" "3 3 3" "columns" \
  "countPod counts a pod whose recorded revision is not the SidecarSet's as outdated"
expect "the running pods keep the sidecar they were created with" "3 busybox:1.37" "sidecar_images"
expect "UpToDate is False: OlderRevisions" "Injected=True/AllPodsInjected UpToDate=False/OlderRevisions" "conditions"
run kubectl get sidecarset logging -o jsonpath='{.status.conditions[?(@.type=="UpToDate")].message}{"\n"}'
expect "one event tells of the new revision" "PodsNotInjected RevisionChanged" "set_events"
run kubectl get sidecarsets -o wide

step "Pod updates that change no count write no status and no event"
# The SidecarSet's resourceVersion moves with every write of it, its status included.
VERSION=$(kubectl get sidecarset logging -o jsonpath='{.metadata.resourceVersion}')
run kubectl label pods -n $NS -l app=web tier=front
run kubectl annotate pods -n $NS -l app=web example.com/note=hello
sleep 2
expect "the SidecarSet was not written: its resourceVersion is still $VERSION" "$VERSION" \
  "kubectl get sidecarset logging -o jsonpath='{.metadata.resourceVersion}'" \
  "TODO(4): setConditions leaves a condition as it was when the counts are the same (no time in a message); a new label is a pass, which must find the status equal and write nothing"
expect "still one event of each" "PodsNotInjected RevisionChanged" "set_events" \
  "TODO(5): tellChanges emits an event only when something changed"

step "Recreated again, the pods run the new revision"
run kubectl rollout restart deployment web -n $NS
run kubectl rollout status deployment web -n $NS --timeout=60s
expect "MATCHED INJECTED OUTDATED say 3 3 0" "3 3 0" "columns"
expect "the pods run busybox:1.38" "3 busybox:1.38" "sidecar_images"
expect "both conditions True" "Injected=True/AllPodsInjected UpToDate=True/AllPodsUpToDate" "conditions"
run kubectl get sidecarsets

step "What the manager caches of a pod"
POD=$(kubectl get pods -n $NS -l app=web -o jsonpath='{.items[0].metadata.name}')
run kubectl get pod -n $NS "$POD" -o jsonpath='{.metadata.annotations}{"\n"}'
printf '    (the cache keeps of these only %s; of the pod, its labels, name, namespace, deletion time\n     and the names of its containers: see TrimPod)\n' \
  "sidecars.workshop.dev/injected"

step "The manager's log"
expect "the manager logged no errors" 0 "$MANAGER_ERRORS" "read ${MANAGER_LOG#"$ROOT"/}"
kubectl delete namespace $NS --wait=false >/dev/null
